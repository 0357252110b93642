"""Large policies (issue 15): a rule group with thousands of rules is split into chunk functions,
so the module stays within wasmtime's limits (50,000 locals per function) and means the same.

Bounded: the 3,000-rule module compiles and loads in ~5 s on an idle 2-core machine (benches/
compile_large.py measures the 20,000-rule case)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.plan import compile_entrypoints
from cupcake_py.plan.rules import CHUNK_RULES, SPLIT_AT
from cupcake_py.rego import parse_module
from cupcake_py.rego.errors import RegoErrors
from cupcake_py.wasm import compile_policy

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("compile_large", REPO / "benches/compile_large.py")
assert _spec is not None and _spec.loader is not None
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)
large_policy = _bench.large_policy


def _module(text: str) -> bytes:
    policy = compile_entrypoints([parse_module(text, "p.rego")], ["p/out"])
    return compile_policy(policy)


def _eval(wasm: bytes, inp: object) -> object:
    raw = PolicyModule(wasm, HostOptions(cache_dir=None)).instantiate().eval_raw(
        "p/out", input_json=json.dumps(inp).encode())
    return json.loads(raw)


def test_a_3000_rule_policy_loads_in_wasmtime_and_every_chunk_answers() -> None:
    system = [parse_module(f.read_text(), f.name) for f in sorted((REPO / "policies/system").glob("*.rego"))
              if not f.name.endswith("_test.rego")]
    policy = compile_entrypoints([parse_module(large_policy(3000), "large.rego"), *system],
                                 ["cupcake/system/evaluate"])
    chunks = [f for f in policy.funcs if "#" in f.name]
    assert len(chunks) >= 3000 // CHUNK_RULES and all(f.path == () for f in chunks)
    wasm = compile_policy(policy)
    module = PolicyModule(wasm, HostOptions(cache_dir=None)).instantiate()
    for i in (0, 1500, 2999):  # first, middle and last chunk
        raw = module.eval_raw("cupcake/system/evaluate",
                              input_json=json.dumps({"tool_input": {"command": f"cmd{i}"}}).encode())
        denials = json.loads(raw)[0]["result"]["denials"]
        assert [d["decision"]["rule_id"] for d in denials] == [f"R{i}"]


N = SPLIT_AT + 2 * CHUNK_RULES + 7  # three chunks


def test_split_partial_set_collects_from_every_chunk() -> None:
    rules = "".join(f"out contains {i} if input.x >= {i}\n" for i in range(N))
    wasm = _module("package p\nimport rego.v1\n" + rules)
    assert _eval(wasm, {"x": N}) == [{"result": list(range(N))}]
    assert _eval(wasm, {"x": 2}) == [{"result": [0, 1, 2]}]


def test_split_partial_object_and_complete_rule() -> None:
    obj = "".join(f'out[k] := {i} if {{ k := "k{i}"; input.x == {i} }}\n' for i in range(N))
    wasm = _module("package p\nimport rego.v1\n" + obj)
    assert _eval(wasm, {"x": N - 1}) == [{"result": {f"k{N - 1}": N - 1}}]
    complete = "".join(f"out := {i} if input.x == {i}\n" for i in range(N)) + "default out := -1\n"
    wasm = _module("package p\nimport rego.v1\n" + complete)
    assert _eval(wasm, {"x": N - 1}) == [{"result": N - 1}]
    assert _eval(wasm, {"x": "none"}) == [{"result": -1}]


def test_conflict_between_rules_in_different_chunks_is_still_an_error() -> None:
    complete = "".join(f"out := {i} if input.x >= {i}\n" for i in range(N))
    wasm = _module("package p\nimport rego.v1\n" + complete)
    assert _eval(wasm, {"x": 0}) == [{"result": 0}]
    with pytest.raises(Exception, match="conflict"):
        _eval(wasm, {"x": N})


def test_small_groups_are_not_split() -> None:
    rules = "".join(f"out contains {i} if input.x >= {i}\n" for i in range(SPLIT_AT))
    policy = compile_entrypoints([parse_module("package p\nimport rego.v1\n" + rules, "p.rego")], ["p/out"])
    assert not [f for f in policy.funcs if "#" in f.name]


def test_functions_with_arguments_split_too() -> None:
    rules = "".join(f"f(x) := {i} if x == {i}\n" for i in range(N))
    wasm = _module("package p\nimport rego.v1\n" + rules + "out := f(input.x)\n")
    assert _eval(wasm, {"x": N - 3}) == [{"result": N - 3}]
    with pytest.raises(RegoErrors):  # unrelated sanity: a bad policy still fails to compile
        _module("package p\nout := undefined_fn(1)\n")
