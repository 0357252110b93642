"""`cupcake test` gives what `opa test` gives: builtin errors are undefined by default (strict only
behind --strict-builtin-errors), data files are mounted at their directory path, conflicts are
load errors, tests are `test_*` rules of any file; plus the build cache, the per-package
fallback build and the parallel evaluation keep results identical and ordered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.authoring.testing import build, evaluate
from cupcake_py.authoring.testing.build import compile_wasm
from cupcake_py.authoring.testing.cases import TestRun, TestSetupError
from cupcake_py.authoring.testing.data import load_data
from cupcake_py.authoring.testing.loading import discover, load_modules
from cupcake_py.authoring.testing.runner import run_tests
from cupcake_py.core.errors import CupcakeError

BUILTIN_ERRORS = """package errs_test

import rego.v1

# (values come from input: a constant of the wrong type is a compile-time type error, in OPA too)
test_subset_of_a_string_is_undefined if not object.subset(input.s, ["a"]) with input as {"s": "abc"}
test_bad_time_is_undefined if not time.parse_rfc3339_ns("not a time")
test_to_number_of_garbage_is_undefined if not to_number("x1")
test_undefined_call_makes_the_body_fail if {
	x := json.unmarshal("{")
	x == 1
}
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def _statuses(run: TestRun) -> dict[str, str]:
    return {r.case.name: r.status for r in run.results}


def test_builtin_errors_are_undefined_by_default(tmp_path: Path) -> None:
    _write(tmp_path, {"errs_test.rego": BUILTIN_ERRORS})
    got = _statuses(run_tests([tmp_path]))
    assert got == {"test_subset_of_a_string_is_undefined": "pass", "test_bad_time_is_undefined": "pass",
                   "test_to_number_of_garbage_is_undefined": "pass",
                   "test_undefined_call_makes_the_body_fail": "fail"}


def test_strict_builtin_errors_are_test_errors(tmp_path: Path) -> None:
    _write(tmp_path, {"errs_test.rego": BUILTIN_ERRORS})
    run = run_tests([tmp_path], strict=True)
    got = _statuses(run)
    assert got["test_subset_of_a_string_is_undefined"] == got["test_bad_time_is_undefined"] == "error"
    assert any("object.subset" in r.message for r in run.results)
    # the C runtime's builtins (to_number, json.unmarshal) too, with OPA's codes and messages
    assert got["test_to_number_of_garbage_is_undefined"] == got["test_undefined_call_makes_the_body_fail"] == "error"
    messages = {r.case.name: r.message for r in run.results}
    assert messages["test_to_number_of_garbage_is_undefined"] == \
        'eval_builtin_error: to_number: strconv.ParseFloat: parsing "x1": invalid syntax'
    assert messages["test_undefined_call_makes_the_body_fail"].startswith("eval_builtin_error: json.unmarshal: ")


def test_data_files_are_mounted_at_their_directory(tmp_path: Path) -> None:
    _write(tmp_path, {
        "limits/data.json": '{"high": 20}',
        "teams/core/members.yaml": "- alice\n- bob\n",
        "top.json": '{"flag": true}',
        "p.rego": "package p\n\nimport rego.v1\n\nhigh := data.limits.high\n",
        "p_test.rego": "package p_test\n\nimport rego.v1\n\n"
                       "test_json if data.p.high == 20\n"
                       "test_yaml if data.teams.core == [\"alice\", \"bob\"]\n"
                       "test_root_file if data.flag == true\n"
                       "test_mock_wins if data.p.high == 3 with data.limits.high as 3\n",
    })
    run = run_tests([tmp_path])
    assert set(_statuses(run).values()) == {"pass"}, [(r.case.name, r.message) for r in run.results]
    assert sorted(Path(f).name for f in run.data_files) == ["data.json", "members.yaml", "top.json"]


def test_a_data_file_named_on_the_command_line_is_mounted_at_the_root(tmp_path: Path) -> None:
    data = _write(tmp_path, {"deep/dir/extra.json": '{"region": "eu"}'}) / "deep/dir/extra.json"
    merged, _ = load_data([data])
    assert merged == {"region": "eu"}


@pytest.mark.parametrize(("files", "message"), [
    ({"a.json": "[1, 2]"}, "bad document type"),
    ({"a.json": '{"x": 1}', "b.yaml": "x: 2\n"}, "merge error"),
    ({"a.json": "{not json"}, "not valid JSON"),
    ({"x/data.json": '{"allow": true}', "x.rego": "package x\n\nimport rego.v1\n\nallow := false\n",
      "x_test.rego": "package x_test\n\ntest_a if true\n"}, "conflicting rule for data path x/allow"),
])
def test_data_load_errors(tmp_path: Path, files: dict[str, str], message: str) -> None:
    _write(tmp_path, {**files, "t_test.rego": "package t_test\n\ntest_a if true\n"})
    with pytest.raises(TestSetupError, match=message):
        run_tests([tmp_path])


def test_tests_are_test_rules_of_any_file_and_todo_is_skipped(tmp_path: Path) -> None:
    _write(tmp_path, {"checks.rego": "package checks\n\nimport rego.v1\n\ntest_in_a_plain_file if true\n"
                                     "todo_test_later if false\nhelper(x) := x\ntest_fn(x) := x\n"})
    assert _statuses(run_tests([tmp_path])) == {"test_in_a_plain_file": "pass", "todo_test_later": "skip"}


@pytest.mark.parametrize("run", [None, "^data.nothing_matches$"])
def test_a_policy_that_does_not_compile_fails_the_run_even_without_tests_to_run(tmp_path: Path,
                                                                                 run: str | None) -> None:
    _write(tmp_path, {"p.rego": "package p\n\nimport rego.v1\n\nx := y\n",
                      "p_test.rego": "package p_test\n\nimport rego.v1\n\ntodo_test_later if true\n"})
    with pytest.raises(TestSetupError, match="rego_unsafe_var_error: var y is unsafe"):
        run_tests([tmp_path], run=run)


def test_only_todo_test_rules_are_skipped_and_only_true_passes(tmp_path: Path) -> None:
    """OPA's runner: SkipTestPrefix is `todo_test_`; a test passes when its value is the boolean
    true (a partial-object test `test_x[name]`: every value true); 0, null, a set or an object
    value of any other rule fail (`test_nested.a.b := true` is a complete rule of value {"a": ...})."""
    _write(tmp_path, {"t.rego": "package t\n\nimport rego.v1\n\n"
                                "todo_list := [1]\ntodo_test_later if false\n"
                                "test_true if true\ntest_zero := 0\ntest_null := null\n"
                                "test_set contains 1\ntest_cases[name] := true if some name in [\"a\", \"b\"]\n"
                                "test_cases_bad[name] := 1 if some name in [\"a\"]\n"
                                "test_nested.a.b := true\n"})
    assert _statuses(run_tests([tmp_path])) == {
        "todo_test_later": "skip", "test_true": "pass", "test_zero": "fail", "test_null": "fail",
        "test_set": "fail", "test_cases": "pass", "test_cases_bad": "fail", "test_nested": "fail"}


def test_run_regex_errors_are_setup_errors(tmp_path: Path) -> None:
    _write(tmp_path, {"a_test.rego": "package a_test\n\ntest_a if true\n"})
    with pytest.raises(TestSetupError, match="--run"):
        run_tests([tmp_path], run="(")


def test_second_run_reuses_the_build_and_agrees(tmp_path: Path) -> None:
    _write(tmp_path, {"errs_test.rego": BUILTIN_ERRORS})
    first, second = run_tests([tmp_path]), run_tests([tmp_path])
    assert not first.cached and second.cached and second.phases.get("compile", 0.0) == 0.0
    assert _statuses(first) == _statuses(second)
    failed = [r for r in second.results if r.status == "fail"]
    assert failed and failed[0].failure is not None  # diagnosis re-parses what the cache skipped
    (tmp_path / "errs_test.rego").write_text(BUILTIN_ERRORS.replace('["a"]', '["b"]'))
    assert not run_tests([tmp_path]).cached  # a changed source is a miss


def test_a_package_that_cannot_be_compiled_does_not_stop_the_others(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"a_test.rego": "package a_test\n\ntest_1 if true\ntest_2 if true\n",
                      "b_test.rego": "package b_test\n\ntest_ok if true\ntest_too_big if true\n"})
    real = compile_wasm
    calls: list[list[str]] = []

    def limited(modules: list, entrypoints: list[str], phases: dict[str, float], compiled: object = None) -> bytes:
        calls.append(list(entrypoints))
        if "b_test/test_too_big" in entrypoints:
            raise CupcakeError("planner limit")
        return real(modules, entrypoints, phases, compiled)

    monkeypatch.setattr(build, "compile_wasm", limited)
    got = _statuses(run_tests([tmp_path], cache=False))
    assert got == {"test_1": "pass", "test_2": "pass", "test_ok": "pass", "test_too_big": "error"}
    assert ["a_test/test_1", "a_test/test_2"] in calls  # package a compiled once, not per test


def test_parallel_evaluation_keeps_order_and_results(tmp_path: Path) -> None:
    lines = [f"test_{i} if {i} % 3 != 0" for i in range(12)]
    _write(tmp_path, {"n_test.rego": "package n_test\n\nimport rego.v1\n\n" + "\n".join(lines) + "\n"})
    modules, _, own = load_modules([tmp_path])
    tests, _ = discover(modules, None, own)
    wasm = compile_wasm(modules, [c.entrypoint for c in tests], {})
    setup = evaluate.EvalSetup(wasm, {}, False, 5.0)
    eps = [c.entrypoint for c in tests]
    ev = evaluate.Evaluator(setup)
    alone = [o.status for o in (ev.run(e) for e in eps)]
    shared = [o.status for o in evaluate._shared(ev, setup, eps, 3)]
    assert shared == alone == ["fail" if i % 3 == 0 else "pass" for i in range(12)]


def test_cli_json_reports_data_backed_results(tmp_path: Path) -> None:
    import subprocess

    from cupcake_py.harness.opencode.examples import cupcake_command

    _write(tmp_path, {"cfg/data.yaml": "max: 2\n", "q_test.rego": "package q_test\n\ntest_max if data.cfg.max == 2\n"})
    proc = subprocess.run([*cupcake_command(), "test", str(tmp_path), "-f", "json", "-v"], capture_output=True,
                          timeout=120, text=True)
    assert proc.returncode == 0, proc.stderr
    assert [d["name"] for d in json.loads(proc.stdout)] == ["test_max"]
    assert "parse" in proc.stderr and "native" in proc.stderr and "eval" in proc.stderr  # --verbose phase times


def test_a_cupcake_directory_s_own_files_are_not_data(tmp_path: Path) -> None:
    root = _write(tmp_path / ".cupcake", {
        "rulebook.yml": "signals: {}\n", "debug/trace-1.json": '{"x": 1}', "telemetry/t.json": "[1]",
        "policies/opencode/limits/data.json": '{"n": 1}',
        "policies/opencode/a_test.rego": "package a_test\n\ntest_n if data.policies.opencode.limits.n == 1\n"})
    run = run_tests([root])
    assert [Path(f).name for f in run.data_files] == ["data.json"]
    assert _statuses(run) == {"test_n": "pass"}


def test_ignore_patterns_skip_files_and_directories(tmp_path: Path) -> None:
    _write(tmp_path, {"a_test.rego": "package a_test\n\ntest_a if true\n",
                      ".hidden/b_test.rego": "package b_test\n\ntest_b if true\n",
                      ".hidden/data.json": "[1]",
                      "vendor/c_test.rego": "package c_test\n\ntest_c if false\n"})
    run = run_tests([tmp_path], ignore=[".*", "vendor"])
    assert _statuses(run) == {"test_a": "pass"} and run.data_files == []
    assert set(_statuses(run_tests([tmp_path], ignore=[".*"]))) == {"test_a", "test_c"}


def test_first_run_on_two_processes_agrees_with_one(tmp_path: Path) -> None:
    """A large first run is built and evaluated by forked workers (`-p 2`): same report as one
    process, in the same order (run as a real command: forking needs a process without wasmtime)."""
    import subprocess
    import sys

    from cupcake_py.harness.opencode.examples import cupcake_command

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
    from test_corpus import generate

    counts = generate(tmp_path / "corpus", policies=40, tested=40, tests_per_file=8)
    assert counts["tests"] >= 300
    reports = {}
    for p in ("1", "2"):
        proc = subprocess.run([*cupcake_command(), "test", str(tmp_path / "corpus"), "-f", "json", "-v", "-p", p,
                               "--no-cache"], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert f"{p} process(es)" in proc.stderr
        reports[p] = [(d["package"], d["name"], d.get("fail", False)) for d in json.loads(proc.stdout)]
    assert reports["1"] == reports["2"] and len(reports["1"]) == counts["tests"]


REF_HEAD_TESTS = """package t

test_ref.y if true
test_br["b"] if true
a.test_in_ref if true
test_cases[name] if some name in ["a", "b"]
test_cases_deeper.y[z] if some z in ["k"]
test_dup if false
test_dup if true
test_dup := 1
test_obj := {"a": true}
test_else if false else := true
todo_test_dup if true
todo_test_dup if false
"""


def test_ref_heads_and_repeated_definitions_as_opa(tmp_path: Path) -> None:
    """OPA's runner (tester.ruleName, rewriteDuplicateTestNames, DocKind): a test's name is its
    head ref up to the `test_` part; only `true` passes, except a partial-object test; each
    definition of a name is a test of its own, the later ones renamed `name#01`, `name#02`."""
    _write(tmp_path, {"t_test.rego": REF_HEAD_TESTS, "pkg/q_test.rego": "package q.r\n\ntest_deep.a.b if true\n"
                                                                       "test_in_pkg if true\n"})
    run = run_tests([tmp_path], cache=False)
    got = [(r.case.full_name, r.status) for r in run.results]
    assert got == [
        ("data.q.r.test_deep", "fail"), ("data.q.r.test_in_pkg", "pass"),
        ("data.t.test_ref", "fail"), ("data.t.test_br", "fail"), ("data.t.a.test_in_ref", "pass"),
        ("data.t.test_cases", "pass"), ("data.t.test_cases_deeper", "fail"),
        ("data.t.test_dup", "fail"), ("data.t.test_dup#01", "pass"), ("data.t.test_dup#02", "fail"),
        ("data.t.test_obj", "fail"), ("data.t.test_else", "pass"),
        ("data.t.todo_test_dup", "skip"), ("data.t.todo_test_dup", "skip")]
    ref = next(r for r in run.results if r.case.name == "test_ref")
    assert ref.value == {"y": True} and ref.message == "the test rule is not true"
    cached = run_tests([tmp_path]), run_tests([tmp_path])
    assert cached[1].cached and [(r.case.full_name, r.status) for r in cached[1].results] == got
    only = run_tests([tmp_path], run="t.test_dup#01", cache=False)
    assert [(r.case.full_name, r.status) for r in only.results] == [("data.t.test_dup#01", "pass")]


FAILING_BODIES = """package f

deny contains "x" if input.user == "bob"

test_count if {
	count(deny) == 1 with input as {"user": "alice"}
}

test_some if {
	some x in [1, 2]
	x > 5
}
"""


def test_failure_values_are_labelled_and_var_values_prints_opas_failures_section(tmp_path: Path) -> None:
    from cupcake_py.authoring.testing import output

    _write(tmp_path, {"f_test.rego": FAILING_BODIES})
    run = run_tests([tmp_path], cache=False)
    plain = output.text(run)
    assert "  count(deny): 0\n" in plain and "  1: 1" not in plain  # constants are not repeated
    assert "  x (one value per solution): [1,2]\n" in plain
    assert "FAILURES" not in plain
    lines = output.text(run, var_values=True).splitlines()
    at = lines.index("FAILURES")
    assert lines[at - 1] == lines[at + 1] == "-" * 80
    section = lines[at + 2:]
    first = section.index(next(line for line in section if line.startswith("data.f.test_count: FAIL (")))
    assert section[first + 1:first + 5] == ["", f"  {tmp_path / 'f_test.rego'}:6:",
                                            '    count(deny) == 1 with input as {"user": "alice"}', "    count(deny): 0"]
    report = json.loads(output.json_report(run))
    assert report[0]["failure"]["operand_texts"] == ["count(deny)", "1"]


EVERY_BODIES = """package e

test_every_object if {
	every k, v in {"a": 1, "b": 7} {
		y := v * 2
		y < 10
	}
}

test_every_with if {
	every s in input.items {
		startswith(s, "ok")
	} with input as {"items": ["ok1", "bad", "ok2"]}
}
"""


def test_a_failing_every_is_diagnosed_inside_its_body(tmp_path: Path) -> None:
    """As OPA's failure line (which skips the `every` and reports the expression inside it): the
    first body expression an element does not pass, with that element's bindings."""
    _write(tmp_path, {"e_test.rego": EVERY_BODIES})
    run = run_tests([tmp_path], cache=False)
    got = {r.case.name: (r.failure.location.row, r.failure.source, r.failure.bindings) for r in run.results
           if r.failure is not None}
    assert got == {"test_every_object": (6, "y < 10", [{"k": "b", "v": 7, "y": 14}]),
                   "test_every_with": (12, 'startswith(s, "ok")', [{"s": "bad"}])}


def test_skipped_tests_are_reported_in_rule_order(tmp_path: Path) -> None:
    _write(tmp_path, {"a_test.rego": "package a\n\ntest_1 if true\ntodo_test_2 if true\ntest_3 if false\n",
                      "b_test.rego": "package b\n\ntodo_test_4 if true\ntest_5 if true\n"})
    for cache in (False, True, True):
        run = run_tests([tmp_path], cache=cache)
        assert [(r.case.name, r.status) for r in run.results] == [
            ("test_1", "pass"), ("todo_test_2", "skip"), ("test_3", "fail"), ("todo_test_4", "skip"), ("test_5", "pass")]


def test_a_cache_entry_of_another_layout_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cupcake_py.authoring.testing import cache

    _write(tmp_path, {"a_test.rego": "package a\n\ntest_1 if true\n"})
    first = run_tests([tmp_path])
    real = cache.load

    def old_layout(key: str) -> Any:
        hit = real(key)
        if hit is not None and "tests" in hit[0]:  # (not the per-chunk entries)
            hit[0]["tests"] = [row[:6] for row in hit[0]["tests"]]  # an entry written before `partial`
        return hit

    monkeypatch.setattr(cache, "load", old_layout)
    again = run_tests([tmp_path])
    assert not again.cached and _statuses(again) == _statuses(first) == {"test_1": "pass"}
