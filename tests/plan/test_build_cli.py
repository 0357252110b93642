"""`cupcake build`: entrypoints from -e or METADATA, IR/WASM output, user errors, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from cupcake_py.cli import build as build_cli

POLICY = """package policy

# METADATA
# entrypoint: true
allow if input.user == "admin"

deny contains msg if {
	some r in input.roles
	r == "guest"
	msg := "guest"
}
"""

runner = CliRunner()
app = typer.Typer()


@app.callback()
def _root() -> None:
    pass


build_cli.register(app)


def _write(tmp: Path, text: str = POLICY) -> Path:
    d = tmp / "pol"
    d.mkdir(exist_ok=True)
    (d / "a.rego").write_text(text)
    return d


def test_build_ir_uses_metadata_entrypoints(tmp_path: Path) -> None:
    r = runner.invoke(app, ["build", "--emit", "ir", str(_write(tmp_path))])
    assert r.exit_code == 0, r.output
    plans = json.loads(r.stdout)["plans"]["plans"]
    assert [p["name"] for p in plans] == ["policy/allow"]


def test_build_wasm_is_deterministic(tmp_path: Path) -> None:
    d = _write(tmp_path)
    outs = []
    for i in range(2):
        out = tmp_path / f"p{i}.wasm"
        r = runner.invoke(app, ["build", "-e", "policy/deny", "-e", "policy/allow", "-o", str(out), str(d)])
        assert r.exit_code == 0, r.output
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0][:4] == b"\0asm"


def test_build_reports_errors_with_location(tmp_path: Path) -> None:
    d = _write(tmp_path, "package x\np if { y > 1 }\n")
    r = runner.invoke(app, ["build", "-e", "x/p", str(d)])
    assert r.exit_code == 1
    assert "a.rego:2:8: rego_unsafe_var_error: var y is unsafe" in r.output
    assert "Traceback" not in r.output


def test_build_without_entrypoints_is_a_user_error(tmp_path: Path) -> None:
    r = runner.invoke(app, ["build", str(_write(tmp_path, "package x\np := 1\n"))])
    assert r.exit_code == 1 and "no entrypoints" in r.output
