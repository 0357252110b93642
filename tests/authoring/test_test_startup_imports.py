"""`cupcake test` start-up (issue 32): what a run imports. `cupcake test PATHS` runs without
typer, click, pydantic or rich (cupcake_py/app/entry.py hands it to authoring/testing/command.py),
first run or cached; a run whose build is cached loads neither the Rego parser nor the
compiler, the rulebook models (pydantic's rulebook) nor the lint modules, nor the stdlib
modules the lean paths avoid (dataclasses, typing, importlib.metadata: the entry-point scan is
cached) nor orjson. Each module listed here is start-up CPU paid by every `cupcake test`
process (one per template directory in an admission library's CI; benches/RESULTS.md, measure
test_startup).

The import diet of a cached run (CACHED_DIET): no `re` (its import and the patterns compiled at
import, and `enum` with it), no pathlib (nor fnmatch, urllib.parse and ipaddress that it
imports), no json package (core/jsonio drives `_json`), no contextlib, no Rego package (the
Rego versions are named for the cache key, target_settings.RegoSetting), no interpreter
teardown; checked on a one-policy v1 directory and on a template of a v0 admission library
(`--v0-compatible lib/ <template>/`). A first run keeps FIRST_RUN_DIET off its imports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import os, sys
sys.argv = ["cupcake", "test", *sys.argv[1:]]
real_exit = os._exit


def report(code):
    mods = sorted(sys.modules)
    sys.stdout.flush()
    sys.stderr.write("\\nMODULES " + repr(mods) + "\\n")
    sys.stderr.flush()
    real_exit(code)


os._exit = report  # the lean path ends with os._exit (no teardown): list the modules first
from cupcake_py.app.entry import main
try:
    main()
except SystemExit as e:
    report(e.code if isinstance(e.code, int) else 1)
"""

OTHER_GROUPS = {"cupcake_py.cli.audit", "cupcake_py.cli.wasm", "cupcake_py.cli.build", "cupcake_py.cli.schema",
                "cupcake_py.cli.fleet", "cupcake_py.cli.rego"}
NEVER = {"typer", "click", "pydantic", "rich", "cupcake_py.cli.app", "cupcake_py.cli.authoring"}  # the lean path
NOT_ON_A_CACHED_RUN = {"cupcake_py.rego.parser", "cupcake_py.rego.compile.compiler", "cupcake_py.plan.planner",
                       "cupcake_py.wasm.codegen", "cupcake_py.engine.rulebook", "cupcake_py.authoring.lint_hygiene",
                       "cupcake_py.authoring.astq", "cupcake_py.authoring.validate", "dataclasses", "typing",
                       "importlib.metadata", "orjson", "hashlib"}
CACHED_DIET = {"re", "enum", "pathlib", "fnmatch", "urllib.parse", "ipaddress", "json", "contextlib", "inspect",
               "ast", "socket", "zipfile", "email", "importlib.abc", "multiprocessing",
               "cupcake_py.rego", "cupcake_py.rego.versions", "cupcake_py.authoring.testing.loading",
               "cupcake_py.engine.bundle_index", "cupcake_py.authoring.testing.diagnose", "yaml"}

# A first run (nothing cached) imports the compiler but not these (issue 32, first run): the
# entry-point scan reads entry_points.txt itself (not importlib.metadata, which brings email,
# zipfile, csv), the compiler modules name typing only for mypy, files are read with str paths,
# hashes use the builtin sha256, cache files are written without tempfile, the planning thread is
# started with _thread, JSON is read and written with core/jsonio, copy and textwrap load only for
# the sources that need them (a v0 `else` chain, a METADATA block).
FIRST_RUN_DIET = {"importlib.metadata", "email", "zipfile", "csv", "typing", "pathlib", "fnmatch", "urllib.parse",
                  "ipaddress", "hashlib", "_hashlib", "tempfile", "shutil", "random", "bz2", "lzma", "threading",
                  "json", "textwrap", "copy", "dataclasses", "inspect"}

# A run whose policies call no host builtin and that has no custom builtin to load: neither the
# host's builtin library nor the custom builtin loader (the entry-point check is apart from it).
NO_BUILTIN_CALLED = {"cupcake_py.host.builtins", "cupcake_py.extensions.builtins"}


def _modules(args: list[str], cache: Path, cwd: Path | None = None, passed: str = "PASS: 1/1") -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    assert proc.returncode == 0 and passed in proc.stdout, proc.stdout + proc.stderr
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("MODULES "))
    return set(ast_literal(line[len("MODULES "):]))


def ast_literal(text: str) -> list[str]:
    import ast

    found = ast.literal_eval(text)
    assert isinstance(found, list)
    return [str(m) for m in found]


def test_a_cached_run_imports_only_what_it_uses(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p/p.rego").write_text("package p\n\nimport rego.v1\n\nallow if input.user == \"admin\"\n")
    (tmp_path / "p/p_test.rego").write_text("package p\n\nimport rego.v1\n\ntest_allow if allow with input as "
                                            "{\"user\": \"admin\"}\n")
    first = _modules([str(tmp_path / "p")], tmp_path / "cache")
    assert "cupcake_py.rego.parser" in first and not first & (OTHER_GROUPS | NEVER), sorted(first & (OTHER_GROUPS | NEVER))
    assert "cupcake_py.wasm.codegen" in first and not first & FIRST_RUN_DIET, sorted(first & FIRST_RUN_DIET)
    cached = _modules([str(tmp_path / "p")], tmp_path / "cache")
    unwanted = OTHER_GROUPS | NEVER | NOT_ON_A_CACHED_RUN | CACHED_DIET | NO_BUILTIN_CALLED
    assert "cupcake_py.host.policy" in cached and not cached & unwanted, sorted(cached & unwanted)


def test_a_cached_v0_library_template_keeps_the_import_diet(tmp_path: Path) -> None:
    """One process per template directory, as an admission library's CI runs `opa test`."""
    sys.path.insert(0, str(REPO / "benches"))
    try:
        from admission_corpus import generate, template_dirs
    finally:
        sys.path.remove(str(REPO / "benches"))
    lib = tmp_path / "lib"
    generate(lib, 2, schema_template=False)
    template = template_dirs(lib)[0].relative_to(lib)
    args = ["--v0-compatible", "lib", str(template)]
    first = _modules(args, tmp_path / "cache", cwd=lib, passed="PASS:")
    assert "cupcake_py.rego.parser" in first
    unwanted_first = FIRST_RUN_DIET - {"copy"}  # (the library's v0 `else` chains are copied)
    assert not first & unwanted_first, sorted(first & unwanted_first)
    cached = _modules(args, tmp_path / "cache", cwd=lib, passed="PASS:")
    unwanted = OTHER_GROUPS | NEVER | NOT_ON_A_CACHED_RUN | CACHED_DIET
    assert "cupcake_py.host.policy" in cached  # (the probe saw the run: its tests were evaluated)
    assert not cached & unwanted, sorted(cached & unwanted)


def test_help_and_unusual_command_lines_still_reach_the_typer_command(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "cupcake_py", "test", "--help"], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert out.returncode == 0 and "Usage: cupcake test [OPTIONS] [PATHS]..." in out.stdout
    bad = subprocess.run([sys.executable, "-m", "cupcake_py", "test", "--format", "sarif", "."], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert bad.returncode == 2 and "'sarif' is not one of text, json" in bad.stderr
