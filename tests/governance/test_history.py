"""input.history: windows with an injected clock (midnight, clock set back), timeouts, repeats,
and cost independent of the log size (indexed queries)."""

from __future__ import annotations

import calendar

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.governance import audit, history, store
from tests.governance.helpers import SETTINGS, event, row

MIDNIGHT = float(calendar.timegm((2026, 11, 24, 0, 0, 0)))


def _write(db: str, ts: float, **kw: object) -> None:
    audit.write_evaluation(SETTINGS, row(ts, **kw), ts, db)  # type: ignore[arg-type]


def _gather(db: str, now: float, ev: dict | None = None, cfg: dict | None = None) -> dict:
    return history.gather(store.connect(db), cfg or SETTINGS, ev or event(), "/p", now)


def test_windows_across_midnight(db: str) -> None:
    for ts, decision in ((MIDNIGHT - 30, "deny"), (MIDNIGHT - 200, "allow"), (MIDNIGHT - 3000, "ask"),
                         (MIDNIGHT - 4000, "deny")):
        _write(db, ts, decision=decision, rules=("R",) if decision != "allow" else ())
    h = _gather(db, MIDNIGHT + 20)  # 00:00:20: the 23:59:30 call is 50 s old
    w = h["session"]["windows"]
    assert w["1m"] == {"calls": 1, "by_decision": {"deny": 1}, "by_rule": {"R": 1}, "by_tool": {"Bash": 1}}
    assert w["5m"]["calls"] == 2 and w["5m"]["by_decision"] == {"deny": 1, "allow": 1}
    assert w["60m"]["calls"] == 3 and w["60m"]["by_rule"] == {"R": 2}
    assert h["now_utc"] == "2026-11-24T00:00:20Z"
    assert h["project"]["windows"]["60m"]["calls"] == 3


def test_a_clock_set_back_keeps_recent_calls_in_every_window(db: str) -> None:
    _write(db, MIDNIGHT + 3600, decision="deny")  # stamped before the clock went back an hour
    w = _gather(db, MIDNIGHT)["session"]["windows"]
    assert w["1m"]["by_decision"] == {"deny": 1} and w["60m"]["calls"] == 1


def test_a_clock_jump_forward_ages_calls(db: str) -> None:
    _write(db, MIDNIGHT, decision="deny")
    assert _gather(db, MIDNIGHT + 61)["session"]["windows"]["1m"]["calls"] == 0
    assert _gather(db, MIDNIGHT + 59)["session"]["windows"]["1m"]["calls"] == 1


def test_only_this_session_and_pre_tool_use_count(db: str) -> None:
    _write(db, MIDNIGHT - 1, session="other")
    _write(db, MIDNIGHT - 1, event="PostToolUse")
    _write(db, MIDNIGHT - 1, session="other", project="/q")
    h = _gather(db, MIDNIGHT)
    assert h["session"]["windows"]["60m"]["calls"] == 0
    assert h["project"]["windows"]["60m"]["calls"] == 1  # "other" in /p


def test_timeout_state_and_reset(db: str) -> None:
    for i in range(3):
        _write(db, MIDNIGHT + i, decision="deny")
    _write(db, MIDNIGHT + 3, decision="halt", rules=("BUILTIN-ESCALATION",), reason="timeout")
    h = _gather(db, MIDNIGHT + 60)
    t = h["timeout"]
    assert t["active"] and t["until"] == MIDNIGHT + 603 and t["minutes_left"] == 10
    assert t["until_utc"] == "2026-11-24T00:10:03Z" and t["rule_id"] == "BUILTIN-ESCALATION"
    assert t["new_until_utc"] == {"BUILTIN-ESCALATION": "2026-11-24T00:11:00Z"}
    after = _gather(db, MIDNIGHT + 700)
    assert not after["timeout"]["active"] and after["timeout"]["ended"] == MIDNIGHT + 603
    assert after["session"]["windows"]["60m"]["calls"] == 0  # the slate is wiped when the timeout ends
    _write(db, MIDNIGHT + 701, decision="deny")
    assert _gather(db, MIDNIGHT + 702)["session"]["windows"]["60m"]["by_decision"] == {"deny": 1}
    assert _gather(db, MIDNIGHT - 3600)["timeout"]["active"]  # clock set back: still in timeout


def test_repeats_and_last_calls(db: str) -> None:
    for i, cmd in enumerate(["make", "ls  -la", "ls -la", "ls -la"]):
        _write(db, MIDNIGHT + i, command=cmd)
    h = _gather(db, MIDNIGHT + 10, event("ls -la"))
    assert h["current"]["repeats"] == 3 and h["current"]["summary"] == "Bash: ls -la"
    assert [c["summary"] for c in h["session"]["last_calls"]] == ["Bash: ls -la"] * 3 + ["Bash: make"]
    assert _gather(db, MIDNIGHT + 10, event("ls"))["current"]["repeats"] == 0
    h = _gather(db, MIDNIGHT + 10, event("ls -la"), {**SETTINGS, "history_last_n": 2})
    assert h["current"]["repeats"] == 2 and len(h["session"]["last_calls"]) == 2


def test_custom_windows(db: str) -> None:
    _write(db, MIDNIGHT - 9 * 60, decision="deny")
    w = _gather(db, MIDNIGHT, cfg={**SETTINGS, "windows": [1, 10]})["session"]["windows"]
    assert set(w) == {"1m", "10m"} and w["10m"]["calls"] == 1 and w["1m"]["calls"] == 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(-7200, 600), st.sampled_from(["allow", "deny", "ask"])), max_size=25),
       st.floats(0, 86400 * 3))
def test_windows_match_a_brute_force_count(tmp_path_factory, calls, base) -> None:  # type: ignore[no-untyped-def]
    d = tmp_path_factory.mktemp("h")
    d.chmod(0o700)
    db = str(d / "g.sqlite3")
    now = MIDNIGHT + base
    try:
        for offset, decision in calls:
            _write(db, now - offset, decision=decision)
        w = _gather(db, now)["session"]["windows"]
        for m in (1, 5, 60):
            expect = [dec for off, dec in calls if off < m * 60]
            assert w[f"{m}m"]["calls"] == len(expect)
            assert w[f"{m}m"]["by_decision"] == {k: expect.count(k) for k in set(expect)}
    finally:
        store.close_all()


def test_queries_use_the_indexes_whatever_the_log_size(db: str) -> None:
    """O(1) in the log size: every history query is an index range (no table scan, no sort of
    the whole log); rows of other sessions, projects and older days are never read."""
    conn = store.connect(db)
    _write(db, MIDNIGHT - 10)
    conn.execute("BEGIN")
    for i in range(5000):  # other sessions, other projects, older days
        r = row(MIDNIGHT - 86400 + i, session=f"other{i % 50}", project="/elsewhere")
        conn.execute(f"INSERT INTO audit ({', '.join(store.AUDIT_COLUMNS)}, prev_hash, hash) VALUES "
                     f"({', '.join('?' * (len(store.AUDIT_COLUMNS) + 2))})",
                     (*[r[c] for c in store.AUDIT_COLUMNS], "", ""))
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    h = _gather(db, MIDNIGHT)
    assert h["session"]["windows"]["1m"]["calls"] == 1 and len(h["session"]["last_calls"]) == 1
    queries = [(history._WINDOW_SQL.format(col="session_id"), (0, 0, "s1", 0)),
               (history._WINDOW_SQL.format(col="project"), (0, 0, "/p", 0)),
               (history._LAST_SQL, ("s1", 10)), (history._TIMEOUT_SQL, ("s1", "s0"))]
    for sql, args in queries:
        plan = " ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, args))
        assert "USING" in plan and "INDEX" in plan and "SCAN audit" not in plan, (sql, plan)


def test_a_subagent_session_shares_its_parents_timeout(db: str) -> None:
    """Escaping a timeout through a subagent (a new session) does not work once the harness told us the
    child's parent; an unrelated session is not affected."""
    audit.write_session_event(SETTINGS, "child", "created", "opencode", "/p", "s1", MIDNIGHT, db)
    audit.write_session_event(SETTINGS, "stranger", "created", "opencode", "/p", None, MIDNIGHT, db)
    _write(db, MIDNIGHT + 1, decision="halt", rules=("BUILTIN-ESCALATION",), reason="timeout")
    child = _gather(db, MIDNIGHT + 5, event(session="child"))
    assert child["timeout"]["active"] and child["session"]["parent_id"] == "s1"
    assert child["session"]["started_at"] == MIDNIGHT
    assert not _gather(db, MIDNIGHT + 5, event(session="stranger"))["timeout"]["active"]


def test_session_lifecycle_is_in_history(db: str) -> None:
    audit.write_session_event(SETTINGS, "s1", "created", "opencode", "/p", None, MIDNIGHT - 100, db)
    audit.write_session_event(SETTINGS, "s1", "compacted", "opencode", "/p", None, MIDNIGHT - 10, db)
    s = _gather(db, MIDNIGHT)["session"]
    assert (s["started_at"], s["compactions"], s["last_compaction"]) == (MIDNIGHT - 100, 1, MIDNIGHT - 10)
    assert s["windows"]["60m"]["calls"] == 0  # lifecycle records are not tool calls
