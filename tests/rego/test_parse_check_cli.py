"""`cupcake parse` / `cupcake check`: exit codes, text and JSON output, the compile-check hook."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import orjson
import pytest
import typer
from typer.testing import CliRunner

from cupcake_py.cli import rego as rego_cli
from cupcake_py.core.errors import Location
from cupcake_py.rego import check
from cupcake_py.rego.ast import Module
from cupcake_py.rego.errors import RegoError

GOOD = "package demo\n\nallow if input.user == \"admin\"\n"
BAD = "package demo\n\nallow { true }\n"


@pytest.fixture()
def app() -> typer.Typer:
    a = typer.Typer()
    a.callback()(lambda: None)
    rego_cli.register(a)
    return a


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "good.rego").write_text(GOOD)
    (tmp_path / "sub" / "also.rego").write_text("package demo.sub\n\nx := 1\n")
    (tmp_path / "notes.txt").write_text("not rego {")
    return tmp_path


@pytest.fixture()
def no_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, check.COMPILE_HOOK_MODULE, types.ModuleType(check.COMPILE_HOOK_MODULE))


def run(app: typer.Typer, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_check_clean_directory(app: typer.Typer, tree: Path, no_hook: None) -> None:
    code, out, _ = run(app, "check", str(tree))
    assert code == 0 and out.strip() == "ok: 2 files checked, no errors"
    code, out, _ = run(app, "check", "--format", "json", str(tree))
    assert code == 0 and orjson.loads(out) == {"errors": []}


def test_check_reports_parse_errors_text(app: typer.Typer, tree: Path, no_hook: None) -> None:
    bad = tree / "bad.rego"
    bad.write_text(BAD)
    code, out, err = run(app, "check", str(tree))
    assert code == 1 and out == ""
    assert err.splitlines() == [
        "1 error occurred:",
        f"{bad}:3:7: rego_parse_error: `if` keyword is required before rule body (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write "
        "`allow if { ... }`",
        "\tallow { true }",
        "\t      ^",
    ]


def test_check_reports_parse_errors_json(app: typer.Typer, tree: Path, no_hook: None) -> None:
    bad = tree / "bad.rego"
    bad.write_text(BAD)
    code, out, _ = run(app, "check", "-f", "json", str(bad), str(tree / "good.rego"))
    assert code == 1
    (e,) = orjson.loads(out)["errors"]
    assert e["code"] == "rego_parse_error" and e["location"] == {"file": str(bad), "row": 3, "col": 7}


def test_check_missing_path(app: typer.Typer, tmp_path: Path) -> None:
    code, _, err = run(app, "check", str(tmp_path / "nope"))
    assert code == 1 and "no such file or directory" in err


def test_check_non_utf8_file(app: typer.Typer, tmp_path: Path, no_hook: None) -> None:
    (tmp_path / "x.rego").write_bytes(b"package p\n\xff\xfe")
    code, _, err = run(app, "check", str(tmp_path))
    assert code == 1 and "not valid UTF-8" in err


def test_check_calls_compile_hook(app: typer.Typer, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[Module]] = []

    def check_modules(modules: list[Module]) -> list[RegoError]:
        seen.append(modules)
        return [RegoError("rego_unsafe_var_error", "var x is unsafe", Location(str(tree / "good.rego"), 3, 7))]

    fake = types.ModuleType(check.COMPILE_HOOK_MODULE)
    fake.check_modules = check_modules  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, check.COMPILE_HOOK_MODULE, fake)
    code, _, err = run(app, "check", str(tree))
    assert code == 1 and "good.rego:3:7: rego_unsafe_var_error: var x is unsafe" in err
    assert len(seen) == 1 and sorted(m.package.dotted() for m in seen[0]) == ["demo", "demo.sub"]


def test_compile_hook_not_called_when_parse_fails(app: typer.Typer, tree: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType(check.COMPILE_HOOK_MODULE)
    fake.check_modules = lambda modules: pytest.fail("hook called despite parse errors")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, check.COMPILE_HOOK_MODULE, fake)
    (tree / "bad.rego").write_text(BAD)
    code, _, err = run(app, "check", str(tree))
    assert code == 1 and "rego_parse_error" in err


def test_compile_hook_absent_means_parse_only(no_hook: None) -> None:
    assert check.compile_check([]) == []


def test_parse_json_and_text(app: typer.Typer, tree: Path) -> None:
    code, out, _ = run(app, "parse", "--format", "json", str(tree / "good.rego"))
    assert code == 0
    ast = orjson.loads(out)
    assert ast["type"] == "Module" and ast["package"]["path"]["terms"][1]["value"] == {
        "type": "String", "value": "demo"}
    rule = ast["rules"][0]
    assert rule["head"]["ref"]["terms"][0]["value"] == {"type": "Var", "name": "allow"}
    assert rule["body"][0]["terms"][0]["value"]["terms"][0]["value"]["name"] == "equal"
    assert rule["location"] == {"file": str(tree / "good.rego"), "row": 3, "col": 1}
    code, out, _ = run(app, "parse", str(tree / "good.rego"))
    assert code == 0 and out == 'package demo\n\nallow if {\n\tinput.user == "admin"\n}\n'


def test_parse_error_exit(app: typer.Typer, tmp_path: Path) -> None:
    (tmp_path / "b.rego").write_text(BAD)
    code, _, err = run(app, "parse", str(tmp_path / "b.rego"))
    assert code == 1 and "rego_parse_error" in err and "\t      ^" in err


def test_help_texts_teach(app: typer.Typer) -> None:
    _, out, _ = run(app, "check", "--help")
    assert "Exit status: 0 when clean, 1" in out and "*.rego" in out
    _, out, _ = run(app, "parse", "--help")
    assert "--format" in out and "AST" in out


def test_wired_into_cupcake_cli(tree: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "cupcake_py", "check", str(tree / "good.rego")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "1 file checked" in r.stdout


@pytest.mark.parametrize("name", ["data.yaml", "values.yml", "data.json"])
def test_check_and_build_skip_data_files_named_on_the_command_line(app: typer.Typer, tree: Path, name: str) -> None:
    """OPA's loader decides by extension: `opa check data.yaml policy/` checks only the policy."""
    (tree / name).write_text("a: 1\n" if name.endswith(("yaml", "yml")) else '{"a": 1}')
    result = CliRunner().invoke(app, ["check", str(tree / name), str(tree)])
    assert result.exit_code == 0, result.output
    assert "2 files checked" in result.output
    from cupcake_py.rego import find_rego_files
    assert [f.name for f in find_rego_files([tree / name, tree / "good.rego"])] == ["good.rego"]
