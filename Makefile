# cupcake-py — every install step lives here so a fresh clone needs only python3, make and node.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo demo-under-load test-load test-tools system-deps fleet-deps bench-sandbox test venv runtime runtime-check mounter mounter-check lint bench bench-quick bench-eval bench-governance bench-fleet bench-plugin node-deps plugin fuzz bench-serve-memory bench-big-event bench-shell-words bench-many-policies clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@echo "installing cupcake-py and its dependencies into $(VENV) (once; about a minute)..."
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
	@# The real Codex CLI, Gemini CLI and Qwen Code for tests/e2e_agents (pinned in package.json, versions locked in
	@# package-lock.json; Codex's native binary comes from its platform package @openai/codex-linux-x64, no download).
	@# `npm install`, as for plugin-ts: the registry here lacks other platforms' optional packages (clipboard
	@# binaries), so the lock cannot list them and `npm ci` refuses it.
	@cd tests/e2e_agents && ( [ -d node_modules ] && [ node_modules -nt package-lock.json ] || npm install --no-audit --no-fund --loglevel=error )
	@# The real GitHub Copilot CLI, Factory Droid and Cline for tests/e2e_chat (pinned; native binaries from their
	@# platform packages: @github/copilot-linux-x64, @factory/cli-linux-x64 itself, @cline/cli-linux-x64).
	@# `npm install` (still pinned by the lock), as for plugin-ts: the reachable registry lacks cline's other-platform
	@# optional packages, so the lock cannot list them and `npm ci` refuses it.
	@cd tests/e2e_chat && ( [ -d node_modules ] && [ node_modules -nt package-lock.json ] || npm install --no-audit --no-fund --loglevel=error )

# Rebuild the OpenCode plugin bundle (cupcake_py/harness/opencode/plugin/cupcake.js) from plugin-ts/src.
plugin: node-deps
	@cd plugin-ts && npm run --silent build

# The plugin's overhead per tool call over the `cupcake eval` process time (plugin-ts/bench/overhead.mjs).
bench-plugin: venv node-deps
	@cd plugin-ts && npm run --silent bench

# The main job: example OpenCode and Claude Code events through `cupcake eval --harness opencode|claude`
# (policies compiled by cupcake-py, run under wasmtime), printed as event -> decision -> reason.
# Every harness's table runs (a failing OpenCode row does not hide the others); the exit status
# is non-zero when any had a row that did not match its case file.
demo: venv
	@rc=0; for m in opencode.demo claude.demo codex.demo gemini.demo qwen.demo hook_demo; do \
	  $(PY) -m cupcake_py.harness.$$m || rc=1; echo; done; exit $$rc

# Command-line programs the reading-class tests (tests/adversarial/test_reading_classes.py) run for real:
# installed with apt-get when running as root and missing.
TEST_TOOLS := git zip unzip sqlite3 jq gdb make cpio rsync
test-tools:
	@missing=$$(for t in $(TEST_TOOLS); do command -v $$t >/dev/null || echo $$t; done); \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	elif [ -n "$$missing" ]; then echo "missing for the tests: $$missing (install them)"; fi

# The same demo with one CPU-bound busy loop per CPU plus two running beside it: the answers must not
# change (the shell analysis is bounded by work, not time). `make test-load`: every example event of both
# harnesses, idle and under that load, compared answer by answer (tests/e2e_eval/test_answers_under_load.py).
BUSY ?= $(shell $(PY) -c "import os; print((os.cpu_count() or 1) + 2)" 2>/dev/null || echo 4)
demo-under-load: venv
	@$(PY) -m cupcake_py.harness.opencode.demo --busy $(BUSY)
	@echo
	@$(PY) -m cupcake_py.harness.claude.demo --busy $(BUSY)

test-load: venv
	@CUPCAKE_LOAD_ALL=1 $(PY) -m pytest -q tests/e2e_eval/test_answers_under_load.py

# System packages the tests use for real: bubblewrap (the kernel floor, docs/sandbox.md), installed
# with apt-get when missing and running as root (elsewhere: install the `bubblewrap` package yourself).
system-deps:
	@if ! command -v bwrap >/dev/null 2>&1 && [ ! -x /usr/bin/bwrap ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get install -y -q bubblewrap >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }; \
	  else echo "make: bubblewrap is missing: install the bubblewrap package (tests/sandbox need it)" >&2; fi; \
	fi

# The OCI registry the fleet tests push bundles to and pull them from (tests/fleet, docs/fleet.md):
# Debian's docker-registry (distribution 2.8), started by the tests on 127.0.0.1; installed when root and missing.
fleet-deps:
	@command -v docker-registry >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
	  { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry >/dev/null; }

# mypy: the whole package, strict ([tool.mypy] in pyproject.toml); ~10 s cold (a clean checkout), <1 s warm.
test: venv node-deps test-tools system-deps fleet-deps
	@$(PY) -m ruff check --quiet .
	@$(PY) -m mypy
	@$(PY) -m pytest

# Rebuild the C runtime (cupcake_py/wasm/runtime) with the pinned zig from PyPI.
runtime: venv
	@$(PY) -m cupcake_py.wasm.runtime.build

runtime-check: venv
	@$(PY) -m cupcake_py.wasm.runtime.build --check

# Rebuild cupcake's mounter (cupcake_py/sandbox/mounter: static, per machine) with the pinned zig from PyPI.
mounter: venv
	@$(PY) -m cupcake_py.sandbox.mounter.build

mounter-check: venv
	@$(PY) -m cupcake_py.sandbox.mounter.build --check

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

# The kernel floor's cost per shell command (plain vs sandboxed, p50/p99) and on a cold Bash eval (docs/sandbox.md).
bench-sandbox: venv system-deps
	@$(PY) benches/sandbox_overhead.py

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

# 10 MB and 100 MB events against --timeout 5, both harnesses: wall time, answer, peak RSS.
bench-big-event: venv
	@$(PY) benches/big_event_deadline.py

# The shell-word split's time per command size (10 KB .. 10 MB) and shape, shlex side by side, then whole
# `cupcake eval` runs on 1 and 5 MB commands (~3 min idle; shlex's quadratic cases stop at --limit).
bench-shell-words: venv
	@$(PY) benches/shell_words_growth.py --shlex --limit 30 --eval-mb 1 5

# Bundle build of 100 / 1,000 / 10,000 one-rule policies, each in a fresh process: time and peak RSS
# (issue 29's goal for 10,000: <= 20 s, <= 400 MB on an idle machine; ~1 min).
bench-many-policies: venv
	@$(PY) benches/build_many_policies.py

# Eval with and without decision-log export configured, the org tier's cost, bundle activation (docs/fleet.md).
bench-fleet: venv
	@$(PY) benches/fleet_cost.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .mypy_cache
