"""The engine: one tool-call event in, one decision out, for any harness: discovery of the project's
policies, the rulebook, the bundle (cache, build worker), routing, signals, WASM evaluation and
synthesis (engine/evaluator.py reads top to bottom through the phases). It knows no agent: the
harness is a value it is handed (engine/harness_api.py).
"""
