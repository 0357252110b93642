"""`cupcake test` without typer (authoring/testing/command.py, dispatched by cupcake_py/app/entry.py)
answers exactly as the typer command does: the same stdout, stderr and exit status on the
repo's own test corpora (the shipped builtin policies' tests, the demo fixture with failing
tests and their diagnosis, the custom-builtins example, a data file, a v0 library template),
in every output format and with the flags that change a run. Each command line runs as a real
process twice: through `cupcake_py.app.entry.main` (the lean path) and through the typer app
(`cupcake_py.cli.app.run`, what every command line the lean path hands over runs). Durations
(`-v` times, JSON `duration`) are the only text that may differ; they are masked.

The parser unit tests pin which command lines the lean path takes and which it hands to typer
(--help, --watch, no PATHS, combined short flags, values typer would refuse or convert)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.authoring.testing import command
from cupcake_py.authoring.testing.command import TestArgs, parse

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "tests" / "authoring" / "rego_fixtures" / "demo"
CUSTOM = REPO / "examples" / "custom_builtins_policy"

LEAN = "import sys; sys.argv = ['cupcake', *sys.argv[1:]]; from cupcake_py.app.entry import main; main()"
TYPER = ("import sys; sys.argv = ['cupcake', *sys.argv[1:]]; import cupcake_py.authoring.testing.command as c; "
         "c.main = lambda argv: None; from cupcake_py.app.entry import main; main()")  # entry hands every line to typer
TIMES = re.compile(r"\d+(\.\d+)?(ns|µs|ms|s)\b")


def _run(code: str, args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def _masked(text: str) -> str:
    try:
        doc = json.loads(text)
    except ValueError:
        return TIMES.sub("<t>", text)
    if isinstance(doc, list):
        for row in doc:
            row.pop("duration", None)
    return json.dumps(doc, sort_keys=True)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpora")
    data = root / "data"
    (data / "limits").mkdir(parents=True)
    (data / "limits" / "data.json").write_text('{"high": 20}')
    (data / "p_test.rego").write_text("package p_test\n\nimport rego.v1\n\ntest_high if data.limits.high == 20\n"
                                      "test_low if data.limits.high < 10\n\ntodo_test_later if true\n")
    sys.path.insert(0, str(REPO / "benches"))
    try:
        from admission_corpus import generate, template_dirs
    finally:
        sys.path.remove(str(REPO / "benches"))
    generate(root / "v0", 1)
    (root / "v0-template").symlink_to(template_dirs(root / "v0")[0])
    return root


CASES = [  # (name, argv after `cupcake`, where the paths are)
    ("builtin policies", ["test", "policies/builtins"], "repo"),
    ("builtin policies, json, --run", ["test", "--format=json", "-r", "protected", "policies/builtins"], "repo"),
    ("demo: failures and their diagnosis", ["test", str(DEMO)], "repo"),
    ("demo, verbose", ["test", "-v", str(DEMO)], "repo"),
    ("demo, json", ["test", "-f", "json", str(DEMO)], "repo"),
    ("demo, --var-values", ["test", "--var-values", str(DEMO)], "repo"),
    ("demo, coverage", ["test", "--coverage", str(DEMO)], "repo"),
    ("demo, threshold", ["test", "--threshold", "99.5", str(DEMO)], "repo"),
    ("demo, strict, timeout", ["test", "--strict-builtin-errors", "--timeout", "500ms", str(DEMO)], "repo"),
    ("custom builtins", ["test", "--custom-builtins", "examples/custom_builtins.py", str(CUSTOM)], "repo"),
    ("data file, todo, -z", ["test", "data", "-z"], "corpora"),
    ("data file, pretty, fail-on-empty, no match", ["test", "data", "-f", "pretty", "--fail-on-empty", "-r", "nothing"],
     "corpora"),
    ("v0 template without --v0-compatible", ["test", "v0/lib", "v0-template"], "corpora"),
    ("v0 template", ["test", "--v0-compatible", "v0/lib", "v0-template", "--ignore", "*.md"], "corpora"),
    ("a bad --run", ["test", "--run", "(", "data"], "corpora"),
    ("a missing path", ["test", "no/such/dir"], "corpora"),
]


@pytest.mark.parametrize("name,argv,where", CASES, ids=[c[0] for c in CASES])
def test_the_lean_path_answers_as_the_typer_command(name: str, argv: list[str], where: str, corpora: Path,
                                                    tmp_path: Path) -> None:
    assert parse(argv[1:]) is not None, "the lean path must take this command line"
    cwd = REPO if where == "repo" else corpora
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "HOME": str(tmp_path), "NO_COLOR": "1"}
    env.pop("CI", None)
    _run(LEAN, argv, cwd, env)  # fills the build cache: both runs below are served from it alike
    lean = _run(LEAN, argv, cwd, env)
    typer = _run(TYPER, argv, cwd, env)
    assert lean[0] == typer[0], (lean, typer)
    assert _masked(lean[1]) == _masked(typer[1]), (lean[1], typer[1])
    assert _masked(lean[2]) == _masked(typer[2]), (lean[2], typer[2])
    assert lean[1] or lean[2]  # it answered something


def test_the_typer_runs_above_really_skip_the_lean_path() -> None:
    """The TYPER variant must reach the typer command: its --help is typer's."""
    out = subprocess.run([sys.executable, "-c", TYPER, "test", "--help"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "--strict-builtin-errors" in out.stdout and "Usage: cupcake test" in out.stdout


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["-h", "p"], ["p", "--watch"], ["p", "-w"], ["-vc", "p"], ["--", "p"], ["-", "p"],
    ["p", "--bogus"], ["p", "--format", "sarif"], ["p", "--format", "TEXT"], ["p", "--threshold", "101"],
    ["p", "--threshold", "-1"], ["p", "--threshold", "1e1"], ["p", "--parallel", "-1"], ["p", "--parallel", "two"],
    ["p", "--timeout", "0"], ["p", "--timeout", "5h"], ["p", "--run"], ["p", "--run", "-x"], ["p", "-rfoo"],
    ["p", "--coverage=true"], ["--policy-dir", ".cupcake"], ["--global"],
])
def test_command_lines_typer_must_read(argv: list[str]) -> None:
    assert parse(argv) is None


def test_plain_command_lines_are_read_as_typer_reads_them() -> None:
    paths, args = parse(["a", "--run=x.*", "-f", "pretty", "b", "--ignore", ".*", "--ignore=tmp", "-c", "-v",
                         "--threshold", "80", "--timeout", "250ms", "-p", "3", "-z", "--fail-on-empty",
                         "--builtins", "m1", "--custom-builtins=m2", "--no-cache", "--v0-compatible",
                         "--strict-builtin-errors", "--policy-dir", "ignored", "--global", "-r", "last"]) or ([], None)
    assert paths == ["a", "b"]
    assert args == TestArgs(run="last", fmt="text", coverage=True, threshold=80.0, verbose=True,
                            strict_builtin_errors=True, timeout=0.25, parallel=3, exit_zero_on_skipped=True,
                            fail_on_empty=True, ignore=[".*", "tmp"], builtins=["m1", "m2"], no_cache=True,
                            v0_compatible=True)
    assert parse(["x"]) == (["x"], TestArgs())


def test_durations_as_the_typer_command_reads_them() -> None:
    assert [command.duration(t) for t in ("5", "5s", " 500ms ", "1m", "1.5s")] == [5.0, 5.0, 0.5, 60.0, 1.5]
    assert [command.duration(t) for t in ("0", "5h", "", "-1s", "1e3")] == [None] * 5


_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*")  # what the readers replaced (re is off the start-up)


def _regex_duration(text: str) -> float | None:
    m = _DURATION.fullmatch(text)
    if m is None or float(m.group(1)) <= 0:
        return None
    return float(m.group(1)) * {"ms": 0.001, "s": 1.0, "m": 60.0}[m.group(2) or "s"]


@settings(max_examples=2000)
@given(st.text(alphabet=st.sampled_from(list("0123456789.msh e\t\u0665\u00b2\u00a0x-")), max_size=8))
def test_values_are_read_as_the_regular_expressions_read_them(text: str) -> None:
    assert command.duration(text) == _regex_duration(text)
    number, count = re.fullmatch(r"\d+(?:\.\d+)?", text), re.fullmatch(r"\d+", text)
    assert command._threshold(text) == (float(text) if number and float(text) <= 100.0 else None)
    assert command._parallel(text) == (int(text) if count else None)
