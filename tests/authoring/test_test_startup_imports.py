"""`cupcake test` start-up (issue 32): what a run imports. `cupcake test PATHS` runs without
typer, click, pydantic or rich (cupcake_py/app/entry.py hands it to authoring/testing/command.py),
first run or cached; a run whose build is cached loads neither the Rego parser nor the
compiler, the rulebook models (pydantic's rulebook) nor the lint modules, nor the stdlib
modules the lean paths avoid (dataclasses, typing, importlib.metadata: the entry-point scan is
cached) nor orjson. Each module listed
here is start-up CPU paid by every `cupcake test` process (one per template directory in an
admission library's CI; benches/RESULTS.md, measure test_startup)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
sys.argv = ["cupcake", "test", sys.argv[1]]
from cupcake_py.app.entry import main
try:
    main()
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""

OTHER_GROUPS = {"cupcake_py.cli.audit", "cupcake_py.cli.wasm", "cupcake_py.cli.build", "cupcake_py.cli.schema",
                "cupcake_py.cli.fleet", "cupcake_py.cli.rego"}
NEVER = {"typer", "click", "pydantic", "rich", "cupcake_py.cli.app", "cupcake_py.cli.authoring"}  # the lean path
NOT_ON_A_CACHED_RUN = {"cupcake_py.rego.parser", "cupcake_py.rego.compile.compiler", "cupcake_py.plan.planner",
                       "cupcake_py.wasm.codegen", "cupcake_py.engine.rulebook", "cupcake_py.authoring.lint_hygiene",
                       "cupcake_py.authoring.astq", "cupcake_py.authoring.validate", "dataclasses", "typing",
                       "importlib.metadata", "orjson", "hashlib"}


def _modules(policy_dir: Path, cache: Path) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(policy_dir)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    assert "PASS: 1/1" in proc.stdout, proc.stdout + proc.stderr
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("MODULES "))
    return set(json.loads(line[len("MODULES "):]))


def test_a_cached_run_imports_only_what_it_uses(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p/p.rego").write_text("package p\n\nimport rego.v1\n\nallow if input.user == \"admin\"\n")
    (tmp_path / "p/p_test.rego").write_text("package p\n\nimport rego.v1\n\ntest_allow if allow with input as "
                                            "{\"user\": \"admin\"}\n")
    first = _modules(tmp_path / "p", tmp_path / "cache")
    assert "cupcake_py.rego.parser" in first and not first & (OTHER_GROUPS | NEVER), sorted(first & (OTHER_GROUPS | NEVER))
    cached = _modules(tmp_path / "p", tmp_path / "cache")
    unwanted = OTHER_GROUPS | NEVER | NOT_ON_A_CACHED_RUN
    assert "cupcake_py.host.policy" in cached and not cached & unwanted, sorted(cached & unwanted)


def test_help_and_unusual_command_lines_still_reach_the_typer_command(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "cupcake_py", "test", "--help"], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert out.returncode == 0 and "Usage: cupcake test [OPTIONS] [PATHS]..." in out.stdout
    bad = subprocess.run([sys.executable, "-m", "cupcake_py", "test", "--format", "sarif", "."], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert bad.returncode == 2 and "'sarif' is not one of text, json" in bad.stderr
