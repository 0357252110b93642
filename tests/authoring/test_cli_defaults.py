"""One CLI convention: validate, test, inspect and verify default to the current project's
.cupcake/ (found from the working directory or a parent), take --global for the global
config, need --harness only where the configuration does not say, and say what to do next
when there is nothing to work on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cupcake_py.cli.app import app

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    proj = tmp_path / "proj"
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(proj)])
    assert r.exit_code == 0, r.output
    (proj / "src").mkdir()
    monkeypatch.chdir(proj / "src")
    return proj


def test_commands_default_to_the_current_project(project: Path) -> None:
    r = runner.invoke(app, ["validate", "--format", "json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["files"] >= 3, r.output
    r = runner.invoke(app, ["test"])
    assert r.exit_code == 0 and "PASS" in r.stdout, r.output
    r = runner.invoke(app, ["inspect", "--format", "json"])
    assert r.exit_code == 0 and any(row["package"] == "cupcake.policies.opencode.example"
                                    for row in json.loads(r.stdout)["policies"])
    r = runner.invoke(app, ["verify"])  # no --harness: the project only has policies/opencode/
    assert r.exit_code == 0, r.output


def test_global_flag_selects_the_global_config(project: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    for cmd in (["validate"], ["test"], ["verify"]):
        r = runner.invoke(app, [*cmd, "--global"])
        assert r.exit_code == 2 and "run `cupcake init --global --harness opencode`" in r.stderr, (cmd, r.output)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    r = runner.invoke(app, ["init", "--harness", "opencode", "--global"])
    assert r.exit_code == 0, r.output
    (tmp_path / "cfg/cupcake/policies/opencode").mkdir(parents=True, exist_ok=True)
    (tmp_path / "cfg/cupcake/policies/opencode/bad.rego").write_text("package x\n\np := ")
    r = runner.invoke(app, ["validate", "--global"])
    assert r.exit_code == 1 and "cfg/cupcake/policies/opencode/bad.rego" in r.stdout, r.output
    r = runner.invoke(app, ["inspect", "--global", "--format", "json"])
    assert r.exit_code == 0 and any("cfg/cupcake" in row["file"] for row in json.loads(r.stdout)["policies"]), r.output


def test_nothing_to_work_on_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for cmd in (["validate"], ["test"], ["verify"]):
        r = runner.invoke(app, cmd)
        assert r.exit_code == 2 and "run `cupcake init --harness opencode`" in r.stderr, (cmd, r.stderr)
