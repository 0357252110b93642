"""Custom builtins from Python: declarations reach the type checker, the planner and the WASM
builtin table; implementations run on the host; `--custom-builtins` on check/build/test/eval, the
rulebook key and the entry point group; anything missing or broken fails closed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cupcake_py.authoring.testing.cases import TestSetupError
from cupcake_py.authoring.testing.runner import run_tests
from cupcake_py.cli.app import app
from cupcake_py.extensions import builtins as cb
from cupcake_py.harness.opencode.examples import isolated_env, run_eval
from cupcake_py.rego.compile import builtins as B
from tests.e2e_eval.test_engine_behaviour import bash, make_config, policy

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "custom_builtins.py"
EXAMPLE_POLICY = REPO / "examples" / "custom_builtins_policy"

runner = CliRunner()


def test_the_documented_example_passes_its_tests() -> None:
    run = run_tests([EXAMPLE_POLICY], builtins=cb.load([str(EXAMPLE)], entry_points=False))
    assert {r.case.name: r.status for r in run.results} == {
        "test_etc_file_is_a_finding": "pass", "test_other_files_are_fine": "pass",
        "test_last_of_empty_is_undefined": "pass", "test_last": "pass"}


def test_without_the_module_the_calls_are_undefined_functions() -> None:
    with pytest.raises(TestSetupError, match="undefined function regal.last"):
        run_tests([EXAMPLE_POLICY], cache=False)


@pytest.mark.parametrize(("text", "decl"), [
    ("string", {"type": "string"}),
    ("array[number]", {"type": "array", "dynamic": {"type": "number"}}),
    ("set[any]", {"type": "set", "of": {"type": "any"}}),
    ("object[string: any]", {"type": "object", "dynamic": {"key": {"type": "string"}, "value": {"type": "any"}}}),
    ("any<string, array[any]>", {"type": "any", "of": [{"type": "string"}, {"type": "array",
                                                                           "dynamic": {"type": "any"}}]}),
    ("array<string, number>", {"type": "array", "static": [{"type": "string"}, {"type": "number"}]}),
    ("object<name: string>", {"type": "object", "static": [{"key": "name", "value": {"type": "string"}}]}),
])
def test_type_language(text: str, decl: dict) -> None:
    assert cb.parse_type(text) == decl


@pytest.mark.parametrize("bad", ["strin", "array[", "object[string]", "array[any]]", "", "set<any>"])
def test_bad_types_are_rejected(bad: str) -> None:
    with pytest.raises(cb.CustomBuiltinError, match="type"):
        cb.parse_type(bad)


@pytest.mark.parametrize(("name", "args", "message"), [
    ("count", ["any"], "OPA builtin"),
    ("data.x", [], "not a valid builtin name"),
    ("a b", [], "not a valid builtin name"),
    ("ok.name", ["any", "any"], "does not take the 2 declared"),
])
def test_bad_declarations_fail_closed(name: str, args: list[str], message: str) -> None:
    with pytest.raises(cb.CustomBuiltinError, match=message):
        cb.CustomBuiltins([cb.CustomBuiltin(name, lambda x: x, args, origin="t")])


def test_declared_types_are_checked_and_scoped() -> None:
    from cupcake_py.rego import parse_module
    from cupcake_py.rego.compile import compile_modules
    from cupcake_py.rego.errors import RegoErrors

    found = cb.load([str(EXAMPLE)], entry_points=False)
    bad = parse_module('package t\n\nimport rego.v1\n\nx := regal.last("not an array")\n', "t.rego")
    with found.declared():
        assert B.lookup("regal.last") is not None
        with pytest.raises(RegoErrors, match=r"regal.last: invalid argument\(s\)"):
            compile_modules([bad])
    assert B.lookup("regal.last") is None  # declarations do not leak out of the block


def test_missing_and_broken_modules_fail_closed(tmp_path: Path) -> None:
    with pytest.raises(cb.CustomBuiltinError, match="cannot be loaded"):
        cb.load(["no_such_module_xyz"], entry_points=False)
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(cb.CustomBuiltinError, match="boom"):
        cb.load([str(broken)], entry_points=False)
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    with pytest.raises(cb.CustomBuiltinError, match="declare no builtin"):
        cb.load([str(empty)], entry_points=False)
    with pytest.raises(cb.CustomBuiltinError, match="does not provide"):
        cb.implementations_for(["nobody.has_this"], [str(EXAMPLE)])


def test_a_raising_builtin_is_undefined_or_a_strict_error_and_a_crash_is_an_error(tmp_path: Path) -> None:
    mod = tmp_path / "crashy.py"
    mod.write_text("from cupcake_py.extensions.builtins import BuiltinError, builtin\n\n"
                   "@builtin('my.soft', args=['any'], result='any')\n"
                   "def soft(x):\n    raise BuiltinError('no')\n\n"
                   "@builtin('my.crash', args=['any'], result='any')\n"
                   "def crash(x):\n    return 1 / 0\n")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "c_test.rego").write_text("package c_test\n\nimport rego.v1\n\n"
                                                "test_soft if not my.soft(1)\ntest_crash if my.crash(1)\n")
    found = cb.load([str(mod)], entry_points=False)
    got = {r.case.name: r.status for r in run_tests([tmp_path / "t"], builtins=found).results}
    assert got == {"test_soft": "pass", "test_crash": "error"}
    got = {r.case.name: r.status for r in run_tests([tmp_path / "t"], builtins=found, strict=True).results}
    assert got == {"test_soft": "error", "test_crash": "error"}


def test_cli_check_build_and_test(tmp_path: Path) -> None:
    r = runner.invoke(app, ["check", "--custom-builtins", str(EXAMPLE), str(EXAMPLE_POLICY)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["check", "--builtins", str(EXAMPLE), str(EXAMPLE_POLICY)])  # the older spelling
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["check", str(EXAMPLE_POLICY)])
    assert r.exit_code == 1 and "undefined function regal.last" in r.output
    r = runner.invoke(app, ["check", "--custom-builtins", "no_such_module_xyz", str(EXAMPLE_POLICY)])
    assert r.exit_code == 2 and "cannot be loaded" in r.output
    out = tmp_path / "m.wasm"
    r = runner.invoke(app, ["build", "--custom-builtins", str(EXAMPLE), "-e", "examples/findings/deny", "-o", str(out),
                            str(EXAMPLE_POLICY / "findings.rego")])
    assert r.exit_code == 0, r.output
    from cupcake_py.host import PolicyModule

    assert {"regal.last", "result.new"} <= set(PolicyModule(out.read_bytes()).summary().builtins.values())
    r = runner.invoke(app, ["test", "--custom-builtins", str(EXAMPLE), str(EXAMPLE_POLICY)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["test", str(EXAMPLE_POLICY), "--no-cache"])
    assert r.exit_code == 1 and "undefined function" in r.output


def _project(tmp_path: Path, rulebook: str) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "p"
    body = ('deny contains {"rule_id": "LAST", "severity": "HIGH", "reason": sprintf("last word %s", [w])} if {\n'
            '  w := regal.last(split(input.tool_input.command, " "))\n  w == "now"\n}\n')
    make_config(project / ".cupcake", {"last": policy("last", body)}, rulebook)
    shutil.copy(EXAMPLE, project / ".cupcake" / "my_builtins.py")
    return project, isolated_env(tmp_path / "cache", tmp_path / "cfg")


def test_eval_with_rulebook_builtins_denies_and_allows(tmp_path: Path) -> None:
    project, env = _project(tmp_path, "custom_builtins: [my_builtins.py]\n")
    resp, code, err = run_eval(bash(project, "deploy it now"), project, [], env)
    assert code == 0 and resp["decision"] == "deny" and "last word now" in json.dumps(resp), (resp, err)
    resp, code, err = run_eval(bash(project, "ls -la"), project, [], env)  # cached bundle, builtin loaded again
    assert code == 0 and resp["decision"] == "allow", (resp, err)


def test_eval_fails_closed_when_the_builtin_module_is_gone_or_missing(tmp_path: Path) -> None:
    project, env = _project(tmp_path, "custom_builtins: [my_builtins.py]\n")
    resp, code, _ = run_eval(bash(project, "ls"), project, [], env)
    assert code == 0
    (project / ".cupcake" / "my_builtins.py").write_text("raise ImportError('gone')\n")  # the bundle is cached
    resp, code, err = run_eval(bash(project, "ls"), project, [], env)
    assert code == 2 and resp["decision"] == "deny" and "cannot be loaded" in resp["reason"], (resp, err)
    assert "Traceback" not in err
    project2, env2 = _project(tmp_path / "two", "")  # no module at all: the bundle does not compile
    resp, code, _ = run_eval(bash(project2, "ls"), project2, [], env2)
    assert code == 2 and resp["decision"] == "deny" and "undefined function regal.last" in resp["reason"]


def test_eval_builtins_option(tmp_path: Path) -> None:
    project, env = _project(tmp_path, "")
    module = str(project / ".cupcake" / "my_builtins.py")
    for flag in ("--custom-builtins", "--builtins"):  # the older spelling stays accepted
        resp, code, err = run_eval(bash(project, "ship it now"), project, [flag, module], env)
        assert code == 0 and resp["decision"] == "deny", (flag, resp, err)


def test_entry_point_group_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed distribution advertising `cupcake_py.builtins` is found without --custom-builtins."""
    pkg = tmp_path / "site"
    (pkg / "acme_rego").mkdir(parents=True)
    (pkg / "acme_rego" / "__init__.py").write_text(
        "from cupcake_py.extensions.builtins import builtin\n\n"
        "@builtin('acme.double', args=['number'], result='number')\n"
        "def double(n):\n    return n * 2\n")
    dist = pkg / "acme_rego-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-rego\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{cb.ENTRY_POINT_GROUP}]\nacme = acme_rego\n")
    monkeypatch.syspath_prepend(str(pkg))
    assert "acme_rego" in cb.entry_point_specs()
    found = cb.load([])
    assert "acme.double" in found.items
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "d_test.rego").write_text("package d_test\n\ntest_double if acme.double(21) == 42\n")
    assert [r.status for r in run_tests([tmp_path / "t"], builtins=found).results] == ["pass"]


def test_custom_builtins_can_be_mocked_and_can_mock(tmp_path: Path) -> None:
    (tmp_path / "m_test.rego").write_text(
        "package m_test\n\nimport rego.v1\n\nfirst(arr) := arr[0]\n\n"
        "test_value_mock if regal.last([1, 2]) == 9 with regal.last as 9\n"
        "test_function_mock if regal.last([1, 2]) == 1 with regal.last as first\n"
        "test_mocks_an_opa_builtin if count([1, 2, 3]) == 3 with count as regal.last\n")
    run = run_tests([tmp_path], builtins=cb.load([str(EXAMPLE)], entry_points=False))
    assert {r.case.name: r.status for r in run.results} == {
        "test_value_mock": "pass", "test_function_mock": "pass", "test_mocks_an_opa_builtin": "pass"}


def test_a_project_rulebook_brings_its_builtins_to_test_and_verify(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    project, env = _project(tmp_path, "custom_builtins: [my_builtins.py]\n")
    (project / ".cupcake" / "policies" / "opencode" / "last_test.rego").write_text(
        "package cupcake.policies.last_test\n\nimport data.cupcake.policies.last\nimport rego.v1\n\n"
        "test_now_is_denied if {\n  some d in last.deny with input as {\"tool_input\": {\"command\": \"go now\"}}\n"
        "  d.rule_id == \"LAST\"\n}\n")
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    r = runner.invoke(app, ["test"])
    assert r.exit_code == 0, r.output
    from cupcake_py.authoring.verify import verify
    from cupcake_py.engine.project import ConfigDir

    result = verify(ConfigDir("project", project / ".cupcake", project))
    steps = {s.name: s for s in result.steps}
    assert steps["policy tests"].ok and steps["lint"].ok, [s.lines for s in result.steps]
    assert steps["compile bundle"].ok, steps["compile bundle"].lines
    r = runner.invoke(app, ["validate", str(project / ".cupcake")])
    assert "undefined function" not in r.output, r.output


def test_an_installed_entry_point_never_runs_inside_cupcake_eval(tmp_path: Path) -> None:
    """Adversarial: the agent installs a package advertising `cupcake_py.builtins` whose import
    would tamper with the engine. cupcake eval (bundle build and evaluation) must not import it;
    the deny still comes from the policy. The authoring commands do see it (benign use)."""
    site = tmp_path / "site"
    (site / "evil_rego").mkdir(parents=True)
    marker = tmp_path / "imported"
    (site / "evil_rego" / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\n"
        "from cupcake_py.extensions.builtins import builtin\n\n"
        "@builtin('evil.noop', args=[], result='boolean')\ndef noop():\n    return True\n")
    dist = site / "evil_rego-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-rego\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{cb.ENTRY_POINT_GROUP}]\nevil = evil_rego\n")
    project, env = _project(tmp_path, "custom_builtins: [my_builtins.py]\n")
    env["PYTHONPATH"] = str(site)
    resp, code, err = run_eval(bash(project, "deploy now"), project, [], env)
    assert code == 0 and resp["decision"] == "deny", (resp, err)
    assert not marker.exists(), "cupcake eval imported an entry point nobody configured"
    import subprocess

    from cupcake_py.harness.opencode.examples import cupcake_command

    proc = subprocess.run([*cupcake_command(), "check", str(EXAMPLE_POLICY)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert marker.exists()  # the developer's commands load installed entry points
    assert "undefined function regal.last" in proc.stderr + proc.stdout  # (evil provides no regal.last)


@pytest.mark.parametrize(("body", "needle"), [
    ("return object()", "non-Rego value"),
    ("raise RuntimeError('builtin bug')", "builtin bug"),
])
def test_a_misbehaving_custom_builtin_fails_eval_closed(tmp_path: Path, body: str, needle: str) -> None:
    project, env = _project(tmp_path, "custom_builtins: [bad.py]\n")
    (project / ".cupcake" / "bad.py").write_text(
        "from cupcake_py.extensions.builtins import builtin\n\n"
        f"@builtin('regal.last', args=['array[any]'], result='any')\ndef last(arr):\n    {body}\n")
    resp, code, err = run_eval(bash(project, "deploy now"), project, [], env)
    assert code == 2 and resp["decision"] == "deny" and needle in resp["reason"], (resp, err)
    assert "Traceback" not in err
