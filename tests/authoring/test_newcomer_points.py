"""Issue 33's numbered newcomer points, each through the real `cupcake` executable on a fresh project
(its own HOME and XDG directories). Point 5 (duplicate rulebook keys) is in test_rulebook_duplicates.py;
the README and docs commands from the wheel in tests/docs/test_docs_commands.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.authoring.cli_project import Run, cupcake, env_for

REPO = Path(__file__).resolve().parents[2]
MIGRATIONS = """# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Edit, Write]
package cupcake.policies.{h}.no_migration_edits

import rego.v1

deny contains {{"rule_id": "NO-MIGRATION-EDIT", "reason": "migrations are written by people", "severity": "HIGH"}} if {{
\tstartswith(input.{field}, "migrations/")
}}
"""


def _project(tmp: Path, harness: str, *, global_: bool = False) -> tuple[Path, dict[str, str]]:
    env = env_for(tmp)
    proj = tmp / "proj"
    proj.mkdir()
    args = ["init", "--harness", harness] + ([] if global_ else ["--no-global"])
    r = cupcake(args, proj, env)
    assert r.code == 0, r.err
    return proj, env


def _write_event(proj: Path, path: str, harness: str = "opencode") -> str:
    if harness == "claude":
        return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(proj), "tool_name": "Write",
                           "tool_input": {"file_path": path, "content": "DROP TABLE users;"}})
    return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(proj), "tool": "write",
                       "args": {"filePath": path, "content": "DROP TABLE users;"}})


def _decision(r: Run, harness: str) -> str:
    out = json.loads(r.out)
    if harness == "claude":
        return str(out.get("hookSpecificOutput", {}).get("permissionDecision", "allow"))
    return str(out["decision"])


@pytest.mark.parametrize("harness", ["opencode", "claude"])
def test_1_resolved_project_path_cannot_be_bypassed(tmp_path: Path, harness: str) -> None:
    proj, env = _project(tmp_path, harness)
    (proj / "migrations").mkdir()
    (proj / "src").mkdir()
    (proj / "db").symlink_to(proj / "migrations")
    policy = proj / f".cupcake/policies/{harness}/no_migration_edits.rego"
    policy.write_text(MIGRATIONS.format(h=harness, field="project_file_path"))
    assert cupcake(["validate"], proj, env).code == 0
    for spelling in (f"{proj}/migrations/0002.sql", "./migrations/0002.sql", "src/../migrations/0002.sql",
                     "migrations/0002.sql", "db/0002.sql"):
        r = cupcake(["eval", "--harness", harness], proj, env, stdin=_write_event(proj, spelling, harness))
        assert _decision(r, harness) == "deny", (spelling, r.out, r.err)
        assert not (proj / "migrations/0002.sql").exists()
    for benign in ("src/migrations.sql", f"{proj}/src/x.sql", "migrationsx/y.sql"):
        r = cupcake(["eval", "--harness", harness], proj, env, stdin=_write_event(proj, benign, harness))
        assert _decision(r, harness) == "allow", (benign, r.out, r.err)
    raw = "filePath" if harness == "opencode" else "file_path"
    policy.write_text(MIGRATIONS.format(h=harness, field=f"tool_input.{raw}"))
    r = cupcake(["validate", "--fail-level", "warning"], proj, env)
    assert r.code == 1 and "[raw-path-prefix]" in r.out and "input.project_file_path" in r.out
    r = cupcake(["eval", "--harness", harness], proj, env, stdin=_write_event(proj, f"{proj}/migrations/x", harness))
    assert _decision(r, harness) == "allow"  # the bypass the warning is about


def test_2_one_rule_decides_the_harness(tmp_path: Path) -> None:
    proj, env = _project(tmp_path, "claude")
    misplaced = proj / ".cupcake/policies/claude/guard.rego"
    misplaced.write_text(MIGRATIONS.format(h="opencode", field="project_file_path"))
    r = cupcake(["validate"], proj, env)
    assert r.code == 1 and "[harness-folder-mismatch]" in r.out and "the engine evaluates it for claude" in r.out
    misplaced.unlink()
    r = cupcake(["verify", "--harness", "opencode"], proj, env)
    assert r.code == 1 and "none for opencode" in r.err and "NOT safe to install" in r.err
    assert "safe to install" in cupcake(["verify"], proj, env).out  # the project's own harness
    rows = json.loads(cupcake(["inspect", "--format", "json"], proj, env).out)["policies"]
    assert any(p["package"] == "cupcake.policies.claude.example" for p in rows)


def test_3_one_vocabulary(tmp_path: Path) -> None:
    proj, env = _project(tmp_path, "claude")
    other = tmp_path / "elsewhere"
    other.mkdir()
    for command in (["validate"], ["test"], ["inspect"], ["verify"], ["fmt", "--check"]):
        r = cupcake([*command, "--policy-dir", str(proj)], other, env)
        assert r.code == 0, (command, r.err)
    for command in (["validate"], ["test"], ["inspect"], ["query", "1"]):
        r = cupcake([*command, "--format", "json"], proj, env)
        assert r.code == 0 and json.loads(r.out) is not None, command
    for command in (["inspect"], ["verify"], ["init"]):
        r = cupcake([*command, "--harness", "claud"], proj, env)
        assert r.code == 2 and "did you mean `claude`" in r.err and "opencode" in r.err, (command, r.err)
    r = cupcake(["eval"], proj, env, stdin=json.dumps({"hook_event_name": "PreToolUse", "session_id": "s",
                                                        "cwd": str(proj), "tool_name": "Bash",
                                                        "tool_input": {"command": "ls"}}))
    assert r.code == 2 and "no --harness given" in r.out and "--harness claude" in r.out
    listing = cupcake(["--help"], proj, env).out.split("\nCommands:\n")[1]
    commands = [line.split()[0] for line in listing.splitlines() if line.startswith("  ") and line.split()]
    assert {"eval", "serve", "validate", "test", "fmt", "query", "audit", "docs"} <= set(commands)
    helps = {c: cupcake([c, "--help"], proj, env).out for c in commands}
    for command, text in helps.items():
        assert text.startswith(f"Usage: cupcake {command}") and "\nOptions:\n" in text, command
        assert "╭" not in text and "─" not in text, command  # no Rich panels: one plain style


def test_4_inspect_shows_the_global_protections(tmp_path: Path) -> None:
    proj, env = _project(tmp_path, "opencode", global_=True)
    rows = json.loads(cupcake(["inspect", "--format", "json"], proj, env).out)["policies"]
    global_on = {r["package"] for r in rows if r["scope"] == "global" and r["enabled"]}
    assert "cupcake.policies.builtins.system_protection" in global_on
    text = cupcake(["inspect"], proj, env).out
    assert "from the global config (enforced in every project)" in text


def test_6_coverage_threshold_on_a_fresh_project(tmp_path: Path) -> None:
    proj, env = _project(tmp_path, "opencode")
    r = cupcake(["test", "--coverage", "--threshold", "80"], proj, env)
    assert r.code == 0, r.err
    files = json.loads(r.out)["files"]
    assert files and not any("/system/" in f for f in files)
    assert all(v["coverage"] >= 80 for v in files.values()), files


def test_7_docs_pointed_to_exist_and_signals_are_documented(tmp_path: Path) -> None:
    proj, env = _project(tmp_path, "opencode")
    assert cupcake(["docs", "testing"], proj, env).out.startswith("# ")
    page = cupcake(["docs", "writing-policies"], proj, env).out
    claude_tools = page.split("### claude tools")[1].split("###")[0]
    assert claude_tools.count("\n| `") >= 10
    for signal in ("file.size", "file.sha256", "file.head"):
        assert f"`{signal}`" in page
    (proj / ".cupcake/policies/opencode/sig.rego").write_text(
        "# METADATA\n# custom:\n#   routing:\n#     required_events: [PreToolUse]\n#     required_tools: [Bash]\n"
        "#     required_signals: [\"git.brnch\"]\npackage cupcake.policies.opencode.sig\n\nimport rego.v1\n\n"
        "deny contains {\"rule_id\": \"S\", \"reason\": \"r\", \"severity\": \"LOW\"} if input.signals.git.branch\n")
    out = cupcake(["validate"], proj, env).out
    assert "did you mean `git.branch`?" in out
    assert 'the signal is input.signals["git.branch"]' in out


def test_8_claude_hooks_audit_and_prompt_context(tmp_path: Path) -> None:
    proj, env = _project(tmp_path, "claude")
    settings = json.loads((proj / ".claude/settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert " cupcake eval --harness claude" in command and str(tmp_path) not in command and "/bin/cupcake" not in command
    rulebook = proj / ".cupcake/rulebook.yml"
    assert 'audit:\n  mode: "on"' in rulebook.read_text()
    rulebook.write_text(rulebook.read_text() + '  always_inject:\n    context: ["Follow CONVENTIONS.md"]\n')
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(proj), "prompt": "hi",
              "transcript_path": "/tmp/t", "permission_mode": "default"}
    r = cupcake(["eval", "--harness", "claude"], proj, env, stdin=json.dumps(prompt))
    assert json.loads(r.out)["hookSpecificOutput"]["additionalContext"] == "Follow CONVENTIONS.md"
    second = tmp_path / "second"
    second.mkdir()
    assert cupcake(["init", "--harness", "opencode", "--no-global"], second, env).code == 0
    cupcake(["eval", "--harness", "opencode"], second, env, stdin=_write_event(second, "a.txt"))
    listed = cupcake(["audit", "list"], proj, env).out
    assert "project" in listed.splitlines()[0] and "proj" in listed and "second" in listed
    mine = [json.loads(line) for line in cupcake(["audit", "list", "--project", ".", "--format", "json"], proj,
                                                 env).out.splitlines()]
    assert mine and {m["project"] for m in mine} == {str(proj.resolve())}
    r = cupcake(["init", "--harness", "claude", "--uninstall"], proj, env)
    assert r.code == 0 and not (proj / ".claude").exists()


@pytest.mark.parametrize("harness", ["opencode", "claude"])
def test_8_audit_is_on_without_the_audit_key_and_off_when_a_rulebook_says_so(tmp_path: Path, harness: str) -> None:
    """A rulebook without `audit` records (the default); `audit: false` in the project, or `audit: off` in the
    global rulebook beside a project without the key, records nothing."""
    proj, env = _project(tmp_path, harness)
    rulebook = proj / ".cupcake/rulebook.yml"
    text = rulebook.read_text()
    assert 'audit:\n  mode: "on"' in text
    rulebook.write_text(text.replace('audit:\n  mode: "on"\n', ""))
    assert "\naudit:" not in rulebook.read_text()
    db = Path(env["XDG_STATE_HOME"]) / "cupcake-py" / "governance.sqlite3"

    def recorded(session: str) -> list[dict[str, object]]:
        event = json.loads(_write_event(proj, "notes.txt", harness))
        event["session_id"] = session
        assert cupcake(["eval", "--harness", harness], proj, env, stdin=json.dumps(event)).code == 0
        r = cupcake(["audit", "list", "--project", ".", "--session", session, "--format", "json"], proj, env)
        assert r.code == 0, r.err
        return [json.loads(line) for line in r.out.splitlines()]

    rows = recorded("default-on")
    assert len(rows) == 1 and rows[0]["decision"] == "allow" and rows[0]["harness"] == harness and db.is_file()
    rulebook.write_text(rulebook.read_text() + "audit: false\n")
    assert recorded("explicit-off") == []
    glob = Path(env["XDG_CONFIG_HOME"]) / "cupcake"
    glob.mkdir(parents=True, exist_ok=True)
    (glob / "rulebook.yml").write_text("audit: off\n")
    rulebook.write_text(rulebook.read_text().replace("audit: false\n", ""))
    assert recorded("global-off") == []
    (glob / "rulebook.yml").write_text("builtins: {}\n")
    assert len(recorded("both-silent")) == 1


def test_9_demo_runs_both_halves_and_explains_a_failing_row(tmp_path: Path) -> None:
    fake = tmp_path / "py"
    log = tmp_path / "log"
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\ncase \"$*\" in *opencode*) exit 1;; esac\nexit 0\n")
    fake.chmod(0o755)
    stamp = tmp_path / "stamp"
    stamp.write_text("")
    r = subprocess.run(["make", "-s", "-C", str(REPO), "demo", f"PY={fake}", f"STAMP={stamp}"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0  # the OpenCode half failed ...
    assert "cupcake_py.harness.claude.demo" in log.read_text()  # ... and the Claude half still ran
    cases = tmp_path / "cases"
    shutil.copytree(REPO / "harness/opencode/examples/cases", cases)
    case = json.loads((cases / "apply-patch-allowed.json").read_text())
    case["expect"] = {"decision": "deny", "reason": "made up"}
    for f in cases.glob("*.json"):
        f.unlink()
    (cases / "wrong.json").write_text(json.dumps(case))
    env = {**env_for(tmp_path), "PATH": os.environ["PATH"]}
    r2 = subprocess.run([str(REPO / ".venv/bin/python"), "-m", "cupcake_py.harness.opencode.demo", "--cases",
                         str(cases)], capture_output=True, text=True, timeout=300, env=env, cwd=REPO)
    assert r2.returncode == 1
    assert "✗" in r2.stdout and "expected: deny" in r2.stdout and "made up" in r2.stdout and "compiles the policies" in r2.stdout
