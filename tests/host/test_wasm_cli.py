"""`cupcake wasm inspect|run`: output, one-line errors, documented exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from cupcake_py.cli import wasm as wasm_cli

from .abi_mock import ENTRYPOINTS, mock_module


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    a = typer.Typer()

    @a.callback()
    def _root() -> None:
        pass

    wasm_cli.register(a)
    return a


@pytest.fixture(scope="module")
def wasm_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("m") / "mock.wasm"
    p.write_bytes(mock_module())
    return p


def _run(app: typer.Typer, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, ["wasm", *args], input=stdin)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r.exit_code, r.stdout, r.stderr


def test_inspect_json(app: typer.Typer, wasm_file: Path) -> None:
    code, out, _ = _run(app, "inspect", str(wasm_file), "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["abi_version"] == "1.3" and doc["entrypoints"] == ENTRYPOINTS and doc["builtins"] == []
    assert {"module": "env", "name": "opa_abort", "kind": "func", "type": "(i32) -> ()"} in doc["imports"]
    assert any(e["name"] == "opa_eval" for e in doc["exports"])


def test_inspect_text(app: typer.Typer, wasm_file: Path) -> None:
    code, out, _ = _run(app, "inspect", str(wasm_file))
    assert code == 0 and "ABI version:  1.3" in out and "echo" in out


def test_run(app: typer.Typer, wasm_file: Path, tmp_path: Path) -> None:
    data = tmp_path / "data.json"
    data.write_text('{"k": 1.50}')
    assert _run(app, "run", str(wasm_file), "-e", "echo", "--input", "-", stdin='{"a": 1}')[:2] == \
        (0, '[{"result":{"a": 1}}]\n')
    assert _run(app, "run", str(wasm_file), "-e", "data", "--data", str(data))[:2] == \
        (0, '[{"result":{"k": 1.50}}]\n')
    assert _run(app, "run", str(wasm_file), "-e", "echo")[:2] == (0, "[]\n")


@pytest.mark.parametrize(("args", "stdin", "code", "message"), [
    (["-e", "loop", "-i", "-", "--timeout", "0.1"], "1", 1, "deadline of 0.1 s"),
    (["-e", "abort", "-i", "-"], "1", 1, "policy.rego:3:5: var assignment conflict"),
    (["-e", "alloc", "-i", "-", "--memory-limit", "16"], "1", 1, "out of memory"),
    (["-e", "nope"], None, 2, "unknown entrypoint 'nope'"),
    (["-e", "echo", "-i", "-"], "{", 2, "input is not valid JSON"),
    (["-e", "echo", "-i", "/nonexistent/x.json"], None, 2, "cannot read input"),
    (["-e", "echo", "--timeout", "0"], None, 2, "deadline must be > 0"),
])
def test_run_errors(app: typer.Typer, wasm_file: Path, args: list[str], stdin: str | None,
                    code: int, message: str) -> None:
    got, out, err = _run(app, "run", str(wasm_file), *args, stdin=stdin)
    assert got == code and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_not_a_module(app: typer.Typer, tmp_path: Path) -> None:
    bad = tmp_path / "bad.wasm"
    bad.write_text("hello")
    code, _, err = _run(app, "run", str(bad), "-e", "x")
    assert code == 3 and "not a WebAssembly binary" in err
