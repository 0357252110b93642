"""Acceptance, through real `cupcake eval` / `cupcake audit` processes: concurrent writers,
tamper detection by `audit verify`, a locked database (warning, or fail closed under
`audit: required`), escalation to a timeout, and the audit CLI."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.harness.opencode.examples import cupcake_command

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.no_rm

import rego.v1

deny contains {"rule_id": "NO-RM", "reason": "no rm -rf", "severity": "HIGH"} if {
	contains(input.tool_input.command, "rm -rf")
}
"""


class World:
    def __init__(self, root: Path, cache: Path, rulebook: str) -> None:
        self.project = root / "project"
        (self.project / ".cupcake" / "policies" / "opencode").mkdir(parents=True)
        (self.project / ".cupcake" / "policies" / "opencode" / "no_rm.rego").write_text(POLICY)
        (self.project / ".cupcake" / "rulebook.yml").write_text(rulebook)
        self.state = root / "state"
        self.env = {**os.environ, "XDG_CACHE_HOME": str(cache), "XDG_CONFIG_HOME": str(root / "config"),
                    "XDG_STATE_HOME": str(self.state), "HOME": str(root)}
        self.env.pop("CI", None)
        self.db = self.state / "cupcake-py" / "governance.sqlite3"

    def eval(self, command: str, session: str = "s1", deadline: float = 5.0,
             harness: tuple[str, ...] = ("--harness", "opencode")) -> tuple[dict[str, Any], int, str]:
        ev = {"hook_event_name": "PreToolUse", "session_id": session, "cwd": str(self.project), "tool": "bash",
              "args": {"command": command}}
        p = subprocess.run([*cupcake_command(), "eval", *harness, "--timeout", str(deadline)],
                           input=json.dumps(ev).encode(), capture_output=True, cwd=self.project, env=self.env,
                           timeout=180)
        return json.loads(p.stdout), p.returncode, p.stdout.decode() + p.stderr.decode()

    def audit(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cupcake_command(), "audit", *args], input=stdin, capture_output=True, text=True,
                              cwd=self.project, env=self.env, timeout=180)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


def test_fifty_parallel_evaluations_write_fifty_chained_records(tmp_path: Path, cache: Path) -> None:
    w = World(tmp_path, cache, "audit: {mode: required, write_budget_ms: 5000}\n")
    assert w.eval("echo warm", session="warm")[:2] == ({"decision": "allow"}, 0)  # compiles the bundle

    def one(i: int) -> tuple[dict[str, Any], int, str]:
        # a generous evaluation deadline: 50 processes on a loaded 2-core machine must not fail closed on time
        return w.eval("rm -rf x" if i % 2 else f"echo {i}", session=f"par{i % 5}", deadline=120.0)

    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(one, range(50)))
    for i, (resp, code, err) in enumerate(results):
        assert code == 0, err
        # the rm calls are refused by NO-RM; the echo calls are allowed however loaded the machine is
        # (the shell analysis is bounded by work, not time)
        assert resp["decision"] == ("deny" if i % 2 else "allow"), resp
    conn = sqlite3.connect(w.db)
    assert conn.execute("SELECT COUNT(*) FROM audit WHERE session_id LIKE 'par%'").fetchone()[0] == 50
    recorded = conn.execute("SELECT COUNT(*) FROM audit WHERE decision = 'deny' AND rule_ids LIKE '%NO-RM%'").fetchone()
    assert recorded[0] == 25
    conn.close()
    v = w.audit("verify", "--json")
    report = json.loads(v.stdout)
    assert v.returncode == 0 and report["ok"] and report["records"] == 51, v.stdout + v.stderr


def test_the_default_harness_is_recorded_by_name(tmp_path: Path, cache: Path) -> None:
    """`cupcake eval` without --harness (OpenCode, the default): the record names the harness (the
    column is NOT NULL; a required audit would otherwise fail every such call closed)."""
    w = World(tmp_path, cache, "audit: {mode: required, write_budget_ms: 5000}\n")
    assert w.eval("echo ok", harness=(), deadline=60.0)[:2] == ({"decision": "allow"}, 0)
    assert w.eval("rm -rf build", harness=(), deadline=60.0)[0]["decision"] == "deny"
    conn = sqlite3.connect(w.db)
    assert conn.execute("SELECT harness, decision FROM audit ORDER BY id").fetchall() == [
        ("opencode", "allow"), ("opencode", "deny")]
    conn.close()


def test_a_tampered_record_is_reported_by_audit_verify(tmp_path: Path, cache: Path) -> None:
    w = World(tmp_path, cache, "audit: on\n")
    assert w.eval("rm -rf build")[0]["decision"] == "deny"
    assert w.eval("echo ok")[0]["decision"] == "allow"
    assert w.audit("verify").returncode == 0
    conn = sqlite3.connect(w.db)
    conn.execute("UPDATE audit SET decision = 'allow', rule_ids = '' WHERE id = 1")  # hide the denial
    conn.commit()
    conn.close()
    v = w.audit("verify")
    assert v.returncode == 1
    assert "TAMPERED: record 1: content does not match its hash (edited)" in v.stdout


@pytest.mark.parametrize("mode", ["on", "required"])
def test_a_locked_database(tmp_path: Path, cache: Path, mode: str) -> None:
    w = World(tmp_path, cache, f"audit: {{mode: {mode}, write_budget_ms: 100}}\n")
    assert w.eval("echo warm")[1] == 0  # creates the database
    blocker = sqlite3.connect(w.db, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        allowed, allowed_code, allowed_err = w.eval("echo fine")
        denied, denied_code, _ = w.eval("rm -rf x")
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    if mode == "on":  # the decision stands, with a warning
        assert (allowed, allowed_code) == ({"decision": "allow"}, 0)
        assert "warning: the audit record was not written" in allowed_err and "busy" in allowed_err
        assert denied["decision"] == "deny" and denied["rule_ids"] == ["NO-RM"]
    else:  # fail closed
        assert allowed_code == denied_code == 2
        for resp in (allowed, denied):
            assert resp["decision"] == "deny"
            assert "audit: required" in resp["reason"] and "busy" in resp["reason"]


@pytest.mark.parametrize("mode", ["on", "required"])
def test_an_unusable_state_dir(tmp_path: Path, cache: Path, mode: str) -> None:
    w = World(tmp_path, cache, f"audit: {mode}\n")
    w.state.mkdir()
    (w.state / "cupcake-py").write_text("a file where the state dir should be")
    resp, code, err = w.eval("echo fine")
    if mode == "on":
        assert (resp, code) == ({"decision": "allow"}, 0) and "warning" in err
    else:
        assert code == 2 and resp["decision"] == "deny" and "audit: required" in resp["reason"]


def test_audit_off_writes_nothing(tmp_path: Path, cache: Path) -> None:
    w = World(tmp_path, cache, "audit: off\n")
    assert w.eval("echo fine")[:2] == ({"decision": "allow"}, 0)
    assert not w.state.exists()


def test_escalation_puts_a_session_in_timeout_and_says_until_when(tmp_path: Path, cache: Path) -> None:
    w = World(tmp_path, cache, "builtins:\n  escalation: {max_denials: 2, window_minutes: 5, timeout_minutes: 7}\n"
                               "  loop_guard: {max_repeats: 3}\n")
    assert w.eval("rm -rf a")[0]["decision"] == "deny"
    assert w.eval("rm -rf b")[0]["decision"] == "deny"
    resp = w.eval("echo harmless")[0]
    assert resp["decision"] == "block" and resp["rule_ids"] == ["BUILTIN-ESCALATION"]
    assert "2 denied calls within 5 min" in resp["reason"] and "timeout for 7 min, until 20" in resp["reason"]
    again = w.eval("echo still")[0]
    assert again["decision"] == "block" and "in timeout until" in again["reason"] and "(7 min left)" in again["reason"]
    assert w.eval("echo other session", session="s2")[0] == {"decision": "allow"}
    for _ in range(2):
        assert w.eval("ls", session="s3")[0] == {"decision": "allow"}
    looped = w.eval("ls", session="s3")[0]
    assert looped["decision"] == "ask" and looped["rule_ids"] == ["BUILTIN-LOOP-GUARD"]


def test_audit_cli_list_stats_export_schema_and_session_events(tmp_path: Path, cache: Path) -> None:
    w = World(tmp_path, cache, "audit: on\n")
    ev = json.dumps({"session_id": "ses_cli", "event": "created", "cwd": str(w.project)})
    assert json.loads(w.audit("session-event", stdin=ev).stdout) == {"recorded": True}
    w.eval("rm -rf x", session="ses_cli")
    w.eval("echo TOKEN=abcdef123456", session="ses_cli")
    w.eval("echo other", session="ses_other")
    lines = [json.loads(x) for x in w.audit("list", "--session", "ses_cli", "--json").stdout.splitlines()]
    assert [r["event"] for r in lines] == ["PreToolUse", "PreToolUse", "SessionStart"]
    assert lines[0]["summary"] == "Bash: echo TOKEN=[REDACTED]" and "abcdef123456" not in json.dumps(lines)
    denied = [json.loads(x) for x in w.audit("list", "--decision", "deny", "--rule", "NO-RM", "--json").stdout.splitlines()]
    assert [r["summary"] for r in denied] == ["Bash: rm -rf x"]
    assert w.audit("list", "--tool", "Edit", "--json").stdout == ""
    table = w.audit("list", "--session", "ses_cli").stdout
    assert "ses_cli" in table and "NO-RM" in table
    stats = json.loads(w.audit("stats", "--session", "ses_cli", "--json").stdout)
    assert stats["by_decision"] == {"deny": 1, "allow": 1, "none": 1} and stats["by_rule"] == {"NO-RM": {"deny": 1}}
    assert json.loads(w.audit("stats", "--day", "today", "--json").stdout)["records"] == 4
    out = tmp_path / "siem.jsonl"
    assert w.audit("export", "-o", str(out)).returncode == 0
    exported = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in exported] == [1, 2, 3, 4] and all(len(r["hash"]) == 64 for r in exported)
    schema = json.loads(w.audit("schema").stdout)
    assert {"session_id", "decision", "rule_ids", "hash", "prev_hash"} <= set(schema["properties"])
    import jsonschema

    for r in exported:
        jsonschema.validate(r, schema)
    pruned = w.audit("prune", "--days", "0", "--vacuum")
    assert pruned.returncode == 0 and "pruned 4 record(s) and vacuumed" in pruned.stdout
    assert w.audit("verify").returncode == 0
    bad = w.audit("list", "--since", "yesterday-ish")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_history_unavailable_fails_closed(tmp_path: Path, cache: Path) -> None:
    """A policy that reads input.history cannot be evaluated without it: deny, exit 2."""
    w = World(tmp_path, cache, "builtins:\n  loop_guard: {}\n")
    w.state.mkdir()
    (w.state / "cupcake-py").write_text("not a directory")
    resp, code, _ = w.eval("echo fine")
    assert code == 2 and resp["decision"] == "deny" and "history signal is unavailable" in resp["reason"]


def test_prune_uses_the_configured_retention(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from cupcake_py.governance import audit, store
    from tests.governance.helpers import SETTINGS, row

    w = World(tmp_path, cache, "audit: {mode: on, retention_days: 2}\n")
    now = time.time()
    for age_days in (5, 4, 3):  # written before the rulebook's 2-day retention
        audit.write_evaluation(SETTINGS, row(now - age_days * 86400), now - age_days * 86400, str(w.db))
    store.close_all()
    assert w.eval("echo recent")[1] == 0
    pruned = w.audit("prune")
    assert pruned.returncode == 0 and "pruned 3 record(s)" in pruned.stdout, pruned.stdout + pruned.stderr
    listed = [json.loads(x) for x in w.audit("list", "--json").stdout.splitlines()]
    assert [r["summary"] for r in listed] == ["Bash: echo recent"]
    assert w.audit("verify").returncode == 0


def test_a_read_only_database(tmp_path: Path, cache: Path) -> None:
    """The database cannot be written: its directory is a read-only mount (as root, in a private mount
    namespace), or the file is read-only (other users)."""
    w = World(tmp_path, cache, "audit: on\n")
    assert w.eval("echo warm")[1] == 0
    for mode, expect_code in (("on", 0), ("required", 2)):
        (w.project / ".cupcake" / "rulebook.yml").write_text(f"audit: {mode}\n")
        resp, code, err = _eval_read_only(w)
        assert code == expect_code, err
        if mode == "on":
            assert resp == {"decision": "allow"} and "warning: the audit record was not written" in err, err
        else:
            assert resp["decision"] == "deny" and "audit: required" in resp["reason"], resp
    assert json.loads(w.audit("verify", "--json").stdout)["records"] == 1  # only the warm-up was written


def _eval_read_only(w: World) -> tuple[dict[str, Any], int, str]:
    ev = {"hook_event_name": "PreToolUse", "session_id": "ro", "cwd": str(w.project), "tool": "bash",
          "args": {"command": "echo fine"}}
    cmd = [*cupcake_command(), "eval", "--harness", "opencode"]
    state = str(w.db.parent)
    if os.geteuid() == 0:  # root writes read-only files: make the state dir a read-only mount instead
        if shutil.which("unshare") is None:
            pytest.skip("root without unshare(1): cannot make the database read-only")
        cmd = ["unshare", "-m", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
               state, *cmd]
    else:
        os.chmod(w.db, 0o400)
    try:
        p = subprocess.run(cmd, input=json.dumps(ev).encode(), capture_output=True, cwd=w.project, env=w.env,
                           timeout=180)
    finally:
        os.chmod(w.db, 0o600)
    if p.returncode not in (0, 2) or not p.stdout.strip():
        pytest.skip(f"could not run with a read-only state dir here: {p.stderr.decode()[-300:]}")
    return json.loads(p.stdout), p.returncode, p.stderr.decode()


def test_ordinary_work_stays_allowed_with_the_history_builtins(tmp_path: Path, cache: Path) -> None:
    """Benign: distinct commands, a command repeated once, edits of different files and other sessions all
    pass with rate_limit, escalation and loop_guard enabled at their usual settings."""
    w = World(tmp_path, cache, "builtins:\n  rate_limit: {limits: [{tools: [Bash], max_calls: 30}]}\n"
                               "  escalation: {}\n  loop_guard: {}\n")
    for command in ("git status", "ls -la", "pytest -q", "pytest -q", "git diff", "make lint", "git status"):
        resp, code, err = w.eval(command)
        assert (resp, code) == ({"decision": "allow"}, 0), (command, resp, err)
    resp, code, _ = w.eval("rm -rf build")  # one denial is not an escalation
    assert resp["rule_ids"] == ["NO-RM"]
    assert w.eval("echo next")[0] == {"decision": "allow"}


def test_rate_limit_asks_then_denies_through_the_engine(tmp_path: Path, cache: Path) -> None:
    w = World(tmp_path, cache, "builtins:\n  rate_limit: {limits: [{tools: [Bash], max_calls: 2, action: deny}]}\n")
    assert w.eval("echo 1")[0] == {"decision": "allow"}
    assert w.eval("echo 2")[0] == {"decision": "allow"}
    resp = w.eval("echo 3")[0]
    assert resp["decision"] == "deny" and resp["rule_ids"] == ["BUILTIN-RATE-LIMIT"]
    assert "2 Bash calls in the last 1 min; at most 2 allowed" in resp["reason"]
    assert w.eval("echo 1", session="fresh")[0] == {"decision": "allow"}
