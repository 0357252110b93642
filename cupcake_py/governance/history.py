"""`input.history`: what the session (and the project) did before this call.

In: an open governance connection (store.connect), the merged settings (settings.merge), the
preprocessed event, the project root and `now` (seconds since the epoch; injected by tests).
Out (JSON):

    {"now": 1.7e9, "now_utc": "2026-11-23T21:00:00Z",
     "session": {"id", "started_at", "parent_id", "compactions", "last_compaction",
                 "windows": {"1m": W, "5m": W, "60m": W, …}, "last_calls": [CALL, …]},
     "project": {"root", "windows": {…}},
     "current": {"key", "summary", "repeats"},
     "timeout": {"active", "until", "until_utc", "minutes_left", "rule_id", "reason",
                 "new_until_utc": {"BUILTIN-ESCALATION": "…Z"}}}
    W    = {"calls", "by_decision": {kind: n}, "by_rule": {id: n}, "by_tool": {tool: n}}
    CALL = {"ts", "tool", "decision", "rule_ids", "summary", "key"}   (newest first)

Windows count PreToolUse evaluations (one per attempted tool call) whose time is less than
the window before `now`; decisions are the engine's kinds (halt, deny, block, ask, modify,
allow). Records stamped after `now` (the clock was set back) count in every window, so a
clock change never lets an agent out early. When the session's last timeout has ended, its
counts restart at the timeout's end (a timeout wipes the slate). A subagent's session (its
parent known from the harness's session.created event) is in its parent's timeout too. `repeats` is how many of
the session's latest calls in a row had this call's key (redact.call_digest).

Cost: three indexed queries plus one row lookup; each reads only the rows of the widest window
(at most one per minute-age, decision, tool and rule set, grouped by SQLite) or the last N
calls, never the rest of the log. sqlite3 errors propagate (the caller fails closed).
"""

from __future__ import annotations

import time

from cupcake_py.governance.redact import call_digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

_WINDOW_SQL = ("SELECT decision, tool, rule_ids, CAST((? - ts) / 60 AS INTEGER) - (? - ts < 0) AS age, COUNT(*) "
               "FROM audit WHERE {col} = ? AND ts >= ? AND event = 'PreToolUse' GROUP BY 1, 2, 3, 4")


_LAST_SQL = ("SELECT ts, tool, decision, rule_ids, summary, call_key FROM audit "
             "WHERE session_id = ? AND event = 'PreToolUse' ORDER BY ts DESC LIMIT ?")
_TIMEOUT_SQL = ("SELECT until, rule_id, reason FROM timeouts WHERE session_id IN (?, ?) "
                "ORDER BY until DESC LIMIT 1")


def utc(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def windows(conn: sqlite3.Connection, column: str, value: str, now: float, minutes: list[int],
            since: float | None) -> dict[str, dict[str, Any]]:
    """Counts per window over the rows of `column` = value (session_id or project)."""
    lower = now - max(minutes) * 60
    if since is not None:
        lower = max(lower, since)
    out: dict[str, dict[str, Any]] = {f"{m}m": {"calls": 0, "by_decision": {}, "by_rule": {}, "by_tool": {}}
                                      for m in minutes}
    rows = conn.execute(_WINDOW_SQL.format(col=column), (now, now, value, lower)).fetchall()
    for decision, tool, rule_ids, age, n in rows:
        rules = rule_ids.split(",") if rule_ids else []
        for m in minutes:
            if age >= m:
                continue
            w = out[f"{m}m"]
            w["calls"] += n
            w["by_decision"][decision] = w["by_decision"].get(decision, 0) + n
            w["by_tool"][tool] = w["by_tool"].get(tool, 0) + n
            for r in rules:
                w["by_rule"][r] = w["by_rule"].get(r, 0) + n
    return out


def _timeout(conn: sqlite3.Connection, session: str, parent: str | None, now: float,
             timeout_rules: dict[str, int]) -> dict[str, Any]:
    """The latest timeout of the session or of its parent session (a subagent's session shares
    its parent's timeout)."""
    row = conn.execute(_TIMEOUT_SQL, (session, parent or session)).fetchone()
    out: dict[str, Any] = {"active": False, "until": None, "until_utc": None, "minutes_left": 0, "rule_id": None,
                           "reason": None, "ended": None,
                           "new_until_utc": {r: utc(now + s) for r, s in timeout_rules.items()}}
    if row is None:
        return out
    until, rule_id, reason = row
    if now < until:
        out.update(active=True, until=until, until_utc=utc(until), minutes_left=int((until - now + 59) // 60),
                   rule_id=rule_id, reason=reason)
    else:
        out["ended"] = until
    return out


def _last_calls(conn: sqlite3.Connection, session: str, n: int) -> list[dict[str, Any]]:
    rows = conn.execute(_LAST_SQL, (session, n)).fetchall()
    return [{"ts": ts, "tool": tool, "decision": d, "rule_ids": r.split(",") if r else [], "summary": s, "key": k}
            for ts, tool, d, r, s, k in rows]


def gather(conn: sqlite3.Connection, settings: dict[str, Any], event: dict[str, Any], project: str,
           now: float) -> dict[str, Any]:
    session = str(event.get("session_id") or "unknown")
    minutes = list(settings["windows"])
    last = _last_calls(conn, session, int(settings["history_last_n"]))
    summary, key, _, _ = call_digest(event)
    repeats = 0
    for call in last:
        if call["key"] != key:
            break
        repeats += 1
    info = conn.execute("SELECT created, parent_id, compactions, last_compaction FROM sessions WHERE session_id = ?",
                        (session,)).fetchone() or (None, None, 0, None)
    timeout = _timeout(conn, session, info[1], now, settings["timeout_rules"])
    return {
        "now": now,
        "now_utc": utc(now),
        "session": {"id": session, "started_at": info[0], "parent_id": info[1], "compactions": info[2],
                    "last_compaction": info[3],
                    "windows": windows(conn, "session_id", session, now, minutes, timeout["ended"]),
                    "last_calls": last},
        "project": {"root": project, "windows": windows(conn, "project", project, now, minutes, None)},
        "current": {"key": key, "summary": summary, "repeats": repeats},
        "timeout": timeout,
    }
