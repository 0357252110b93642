# cupcake-py — every install step lives here so a fresh clone needs only python3, make and node.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test venv runtime runtime-check lint bench bench-quick bench-eval bench-governance bench-plugin node-deps plugin fuzz bench-serve-memory clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	@$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

# Node dependencies for the plugin and the cross-checks against OPA's JS SDK.
# plugin-ts uses `npm install` (still pinned by its lock): the registry reachable here lacks some of
# opencode-ai's other-platform optional packages, so its lock cannot list them and `npm ci` refuses it.
node-deps:
	@if [ -f plugin-ts/package.json ]; then \
	  cd plugin-ts && ( [ -d node_modules ] && [ node_modules -nt package-lock.json ] || npm install --no-audit --no-fund --loglevel=error ); \
	fi
	@cd tests/js && ( [ -d node_modules ] && [ node_modules -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error )
	@# The real Claude Code for tests/e2e_claude (pinned; its native binary comes from the platform's optional
	@# package, e.g. @anthropic-ai/claude-code-linux-x64, hard-linked over bin/claude.exe by its postinstall).
	@cd tests/e2e_claude && ( [ -d node_modules ] && [ node_modules -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error )

# Rebuild the OpenCode plugin bundle (cupcake_py/harness/opencode/plugin/cupcake.js) from plugin-ts/src.
plugin: node-deps
	@cd plugin-ts && npm run --silent build

# The plugin's overhead per tool call over the `cupcake eval` process time (plugin-ts/bench/overhead.mjs).
bench-plugin: venv node-deps
	@cd plugin-ts && npm run --silent bench

# The main job: example OpenCode and Claude Code events through `cupcake eval --harness opencode|claude`
# (policies compiled by cupcake-py, run under wasmtime), printed as event -> decision -> reason.
demo: venv
	@$(PY) -m cupcake_py.harness.opencode.demo
	@echo
	@$(PY) -m cupcake_py.harness.claude.demo

# mypy: the whole package, strict ([tool.mypy] in pyproject.toml); ~10 s cold (a clean checkout), <1 s warm.
test: venv node-deps
	@$(PY) -m ruff check --quiet .
	@$(PY) -m mypy
	@$(PY) -m pytest

# Rebuild the C runtime (cupcake_py/wasm/runtime) with the pinned zig from PyPI.
runtime: venv
	@$(PY) -m cupcake_py.wasm.runtime.build

runtime-check: venv
	@$(PY) -m cupcake_py.wasm.runtime.build --check

lint: venv
	@$(PY) -m ruff check .
	@$(PY) -m mypy

# Full benchmark run (<= 10 min): benches/results.json, benches/RESULTS.md, benches/bench.png.
# The `bench` extra adds matplotlib for the chart. `make bench-quick` (<= 60 s) writes under benches/out/
# and also runs in `make test` (tests/benches/).
BENCH_STAMP := $(VENV)/.bench-stamp

$(BENCH_STAMP): pyproject.toml $(STAMP)
	@$(PY) -m pip install -q --disable-pip-version-check -e '.[dev,bench]'
	@touch $(BENCH_STAMP)

bench: venv $(BENCH_STAMP)
	@$(PY) benches/run.py

bench-quick: venv
	@$(PY) benches/run.py --quick

# Cold `cupcake eval` vs `python -c "import wasmtime"` (new process per event, warm caches).
bench-eval: venv
	@$(PY) benches/eval_cold.py

# What the audit log and the history signal add to a cold `cupcake eval` (docs/governance.md).
bench-governance: venv
	@$(PY) benches/governance_cost.py

# Coverage-guided fuzzing (atheris): every target of fuzz/targets.py for FUZZ_SECONDS each (default 60),
# seeded from the repository's examples; reports executions and findings (fuzz/findings/). Not in `make test`:
# its findings, once fixed, are replayed there (fuzz/regressions/, tests/fuzz/). Longer: FUZZ_SECONDS=3600.
FUZZ_SECONDS ?= 60
FUZZ_STAMP := $(VENV)/.fuzz-stamp

$(FUZZ_STAMP): pyproject.toml $(STAMP)
	@$(PY) -m pip install -q --disable-pip-version-check -e '.[dev,fuzz]'
	@touch $(FUZZ_STAMP)

fuzz: venv $(FUZZ_STAMP)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) $(PY) fuzz/run.py

# RSS of one `cupcake serve` over 100,000 mixed requests (allow, deny, malformed, fractions, huge lines).
bench-serve-memory: venv
	@$(PY) benches/serve_memory.py --requests 100000

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .mypy_cache
