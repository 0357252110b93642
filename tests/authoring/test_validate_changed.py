"""`cupcake validate --changed [--base REF]` on a temporary git repository: only the changed
policies and the policies importing them (transitively) are reported."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cupcake_py.authoring.changed import validate_changed
from cupcake_py.cli.app import app

runner = CliRunner()

HEAD = """# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
"""


def policy(name: str, imports: str = "", extra: str = "") -> str:
    """A routed policy with one print() call (a print-call warning)."""
    return (f"{HEAD}package cupcake.policies.{name}\n\nimport rego.v1\n{imports}\n"
            f'deny contains {{"rule_id": "{name.upper()}", "reason": "no", "severity": "HIGH"}} if {{\n'
            f'\tprint("checking")\n\tinput.tool_input.command == "x"{extra}\n}}\n')


LIB = """package cupcake.lib.helpers

import rego.v1

dangerous(cmd) if startswith(cmd, "rm ")
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    pol = tmp_path / ".cupcake" / "policies"
    pol.mkdir(parents=True)
    (pol / "lib.rego").write_text(LIB)
    (pol / "user.rego").write_text(policy("user", "import data.cupcake.lib.helpers\n",
                                          "\n\thelpers.dangerous(input.tool_input.command)"))
    (pol / "other.rego").write_text(policy("other"))
    (pol / "unrelated.rego").write_text(policy("unrelated"))
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "policies")
    return tmp_path


def names(files: list[str]) -> set[str]:
    return {Path(f).name for f in files}


def test_only_the_changed_policy_and_its_importers(repo: Path) -> None:
    cc = repo / ".cupcake"
    assert validate_changed([cc], "HEAD").files == []
    (cc / "policies/lib.rego").write_text(LIB + '\ndangerous(cmd) if startswith(cmd, "dd ")\n')
    report = validate_changed([cc], "HEAD")
    assert names(report.files) == {"lib.rego", "user.rego"}
    assert {Path(f.file).name for f in report.findings} == {"user.rego"}  # user's print() call
    # a committed change since --base counts too, and a new untracked policy
    (cc / "policies/other.rego").write_text(policy("other") + "\n")
    git(repo, "commit", "-qm", "change other", "--", ".cupcake/policies/other.rego")
    (cc / "policies/new.rego").write_text(policy("new"))
    assert names(validate_changed([cc], "HEAD~1").files) == {"lib.rego", "user.rego", "other.rego", "new.rego"}
    assert names(validate_changed([cc], "HEAD").files) == {"lib.rego", "user.rego", "new.rego"}


def test_cli_github_annotations_and_errors(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    (repo / ".cupcake/policies/other.rego").write_text(policy("other", extra="\n\tprint(1)"))
    r = runner.invoke(app, ["validate", "--changed", "--format", "github"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("::warning file=.cupcake/policies/other.rego,line=11,col=2,title=print-call::")
    assert all("other.rego" in ln for ln in lines[:-1]) and lines[-1].startswith("1 file checked")
    r = runner.invoke(app, ["validate", "--changed", "--base", "no-such-ref", "--format", "json"])
    assert r.exit_code == 2 and "fetch it first" in r.stderr
    r = runner.invoke(app, ["validate", "--changed", "--base", "HEAD", "--format", "json"])
    assert json.loads(r.stdout)["files"] == 1


def test_outside_git(tmp_path: Path) -> None:
    (tmp_path / "p.rego").write_text(policy("p"))
    r = runner.invoke(app, ["validate", "--changed", str(tmp_path)])
    assert r.exit_code == 2 and "not inside a git repository" in r.stderr
