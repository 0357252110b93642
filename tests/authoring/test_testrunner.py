"""`cupcake test`: tests compiled through plan → wasm → host; mocks, builtin errors (undefined
by default as `opa test`, errors under --strict-builtin-errors), failure diagnosis, coverage, the
shipped policies' own tests, the CLI (OPA's output and exit codes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cupcake_py.authoring.testing.cases import UNDEFINED_TEXT, TestRun, TestSetupError
from cupcake_py.authoring.testing.runner import run_tests
from cupcake_py.cli.app import app

HERE = Path(__file__).parent
REPO = HERE.parents[1]
DEMO = HERE / "rego_fixtures" / "demo"

runner = CliRunner()


@pytest.fixture(scope="module")
def demo_run() -> TestRun:
    return run_tests([DEMO], coverage=True)


def _by_name(run: TestRun) -> dict[str, object]:
    return {r.case.name: r for r in run.results}


def test_statuses(demo_run: TestRun) -> None:
    got = {name: r.status for name, r in _by_name(demo_run).items()}  # type: ignore[attr-defined]
    assert got == {"test_rm_denied": "pass", "test_ls_allowed": "pass", "test_data_mock": "pass",
                   "test_function_mock": "pass", "test_wrong_id": "fail", "test_strict_builtin_error": "fail",
                   "todo_test_later": "skip"}
    assert not demo_run.ok and demo_run.wasm_size > 0


def test_failure_shows_expression_locals_and_operands(demo_run: TestRun) -> None:
    r = _by_name(demo_run)["test_wrong_id"]
    f = r.failure  # type: ignore[attr-defined]
    assert f is not None
    assert (f.location.file, f.location.row) == (str(DEMO / "demo_test.rego"), 30)
    assert f.source == 'ids == {"DEMO-RM"}'
    assert [dict(b) for b in f.bindings] == [{"cmd": "curl x", "ids": frozenset({"DEMO-CURL"})}]
    assert f.operands == [frozenset({"DEMO-CURL"}), frozenset({"DEMO-RM"})]


def test_builtin_error_is_undefined_by_default(demo_run: TestRun) -> None:
    r = _by_name(demo_run)["test_strict_builtin_error"]
    assert r.status == "fail" and r.failure is not None  # type: ignore[attr-defined]
    assert r.failure.operands[0] == UNDEFINED_TEXT  # type: ignore[attr-defined]


def test_strict_builtin_errors_make_a_test_error() -> None:
    run = run_tests([DEMO], strict=True, run="test_strict")
    (r,) = [r for r in run.results if r.status != "skip"]
    assert r.status == "error" and "time.parse_rfc3339_ns" in r.message


def test_coverage_marks_unexecuted_rule(demo_run: TestRun) -> None:
    assert demo_run.coverage is not None
    cov = demo_run.coverage[str(DEMO / "demo.rego")]
    assert cov.not_covered == {20, 21}  # the ask rule: no test runs `git push`
    assert {11, 12, 15, 16, 17} <= cov.covered
    assert str(DEMO / "demo_test.rego") not in demo_run.coverage


def test_run_filter() -> None:
    run = run_tests([DEMO], run=r"test_(rm|ls)_")
    assert sorted(r.case.name for r in run.results if r.status != "skip") == ["test_ls_allowed", "test_rm_denied"]
    assert run.ok and run.coverage is None


def test_parse_error_is_a_setup_error(tmp_path: Path) -> None:
    (tmp_path / "x_test.rego").write_text("package x_test\n\ntest_a if {\n")
    with pytest.raises(TestSetupError, match=r"x_test.rego:\d+:\d+"):
        run_tests([tmp_path])


def test_shipped_policies_own_tests_pass() -> None:
    run = run_tests([REPO / "policies"])
    counted = [r for r in run.results if r.status != "skip"]
    assert counted, "the shipped policies have no *_test.rego tests"
    assert [f"{r.case.full_name}: {r.status} {r.message}" for r in counted if r.status != "pass"] == []


def test_cli_text_json_and_coverage() -> None:
    r = runner.invoke(app, ["test", str(DEMO)])
    assert r.exit_code == 2  # opa test: a failing test exits 2
    assert f"{DEMO / 'demo_test.rego'}:27:\ndata.cupcake.policies.demo_test.test_wrong_id: FAIL (" in r.stdout
    assert 'locals: cmd = "curl x", ids = {"DEMO-CURL"}' in r.stdout
    assert "test_rm_denied" not in r.stdout  # passing tests only with --verbose
    assert r.stdout.splitlines()[-4:] == ["-" * 80, "PASS: 4/7", "FAIL: 2/7", "SKIPPED: 1/7"]
    r = runner.invoke(app, ["test", str(DEMO), "--run", "test_rm", "--format", "json"])
    assert r.exit_code == 0, r.stdout
    doc = json.loads(r.stdout)
    assert [(d["package"], d["name"]) for d in doc] == [("data.cupcake.policies.demo_test", "test_rm_denied")]
    assert isinstance(doc[0]["duration"], int) and "fail" not in doc[0]
    r = runner.invoke(app, ["test", str(DEMO), "--run", "test_rm", "--coverage"])
    assert r.exit_code == 0, r.stdout
    cov = json.loads(r.stdout)
    assert 0 < cov["files"][str(DEMO / "demo.rego")]["coverage"] < 100
    assert {"start": {"row": 20}, "end": {"row": 21}} in cov["files"][str(DEMO / "demo.rego")]["not_covered"]
    r = runner.invoke(app, ["test", str(DEMO), "--run", "test_rm", "--coverage", "--threshold", "99"])
    assert r.exit_code == 2


def test_cli_exit_codes_skipped_empty_and_load_errors(tmp_path: Path) -> None:
    r = runner.invoke(app, ["test", str(DEMO), "--run", "todo_test_later|test_rm"])
    assert r.exit_code == 2 and "SKIPPED: 1/2" in r.stdout  # a skipped test is not a pass ...
    r = runner.invoke(app, ["test", str(DEMO), "--run", "todo_test_later|test_rm", "-z"])
    assert r.exit_code == 0  # ... unless --exit-zero-on-skipped
    r = runner.invoke(app, ["test", str(DEMO), "--run", "nothing_matches"])
    assert r.exit_code == 0
    r = runner.invoke(app, ["test", str(DEMO), "--run", "nothing_matches", "--fail-on-empty"])
    assert r.exit_code == 1
    (tmp_path / "x_test.rego").write_text("package x_test\n\ntest_a if {\n")
    r = runner.invoke(app, ["test", str(tmp_path)])
    assert r.exit_code == 1 and "x_test.rego:" in r.stderr
