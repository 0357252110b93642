"""Writing the audit log: one hash-chained record per evaluation, session lifecycle events,
timeouts. Imported by `cupcake eval` only when a bundle records (settings.merge is not None).

- `evaluation_row(event, harness, project, decision, rule_ids, reason, error, timings, bundle_key,
  now) -> dict`: the record (store.AUDIT_COLUMNS) with the input redacted (redact.call_digest)
  and the reason and error text redacted too (policies may quote the call).
- `write_evaluation(settings, row, now, db) -> None`: appends the record in one transaction
  bounded by `write_budget_ms`; a halt by a rule of `timeout_rules` starts a timeout for
  the session (unless one is running); every 256th record prunes by the retention settings.
- `write_session_event(settings, session_id, kind, harness, project, parent_id, now, db)`:
  "created" / "compacted" from the harness: the `sessions` row and an audit record
  (event SessionStart / SessionCompact) in the chain.
Fails: StoreError (the caller warns, or fails closed under `audit: required`).
"""

from __future__ import annotations

from cupcake_py import __version__
from cupcake_py.core import jsonio
from cupcake_py.governance import chain, store
from cupcake_py.governance.redact import call_digest, redact_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

PRUNE_EVERY = 256
SESSION_EVENTS = {"created": "SessionStart", "compacted": "SessionCompact"}


def evaluation_row(event: dict[str, Any], harness: str, project: str, decision: str, rule_ids: list[str],
                   reason: str | None, error: str | None, timings: dict[str, float], bundle_key: str,
                   now: float) -> dict[str, Any]:
    summary, key, text, digest = call_digest(event)
    return {
        # ts is REAL in SQLite: an int would read back as a float and no longer match its hash
        "ts": float(now), "harness": harness, "session_id": str(event.get("session_id") or "unknown"),
        "project": project,
        "event": str(event.get("hook_event_name") or ""), "tool": str(event.get("tool_name") or event.get("tool") or ""),
        "call_key": key, "summary": summary, "input": text, "input_sha256": digest, "decision": decision,
        "rule_ids": ",".join(sorted(set(rule_ids))),
        "reasons": jsonio.dumps([redact_text(reason)] if reason else []).decode(),  # reasons may quote the call
        "error": redact_text(error or ""), "timings": jsonio.dumps({k: round(v * 1000, 3) for k, v in timings.items()}).decode(),
        "version": __version__, "bundle_key": bundle_key,
    }


def _budget(settings: dict[str, Any]) -> float:
    return float(settings["write_budget_ms"]) / 1000.0


def _maybe_prune(conn: sqlite3.Connection, settings: dict[str, Any], new_id: int, now: float) -> None:
    if new_id % PRUNE_EVERY == 0:
        chain.prune(conn, now - settings["retention_days"] * 86400, settings["max_rows"])


def write_evaluation(settings: dict[str, Any], row: dict[str, Any], now: float, db: str | None = None) -> None:
    budget = _budget(settings)
    conn = store.connect(db, budget)
    halted = row["decision"] == "halt"
    rules = [r for r in row["rule_ids"].split(",") if r in settings["timeout_rules"]] if halted else []

    def tx(c: sqlite3.Connection) -> None:
        new_id, _ = chain.append(c, row)
        if rules:
            running = c.execute("SELECT 1 FROM timeouts WHERE session_id = ? AND until > ?",
                                (row["session_id"], now)).fetchone()
            if running is None:
                reasons = jsonio.loads(row["reasons"])
                c.execute("INSERT OR REPLACE INTO timeouts VALUES (?, ?, ?, ?, ?)",
                          (row["session_id"], now, now + settings["timeout_rules"][rules[0]], rules[0],
                           reasons[0] if reasons else ""))
        _maybe_prune(c, settings, new_id, now)

    store.write(conn, tx, budget)


def write_session_event(settings: dict[str, Any], session_id: str, kind: str, harness: str, project: str,
                        parent_id: str | None, now: float, db: str | None = None) -> None:
    budget = _budget(settings)
    conn = store.connect(db, budget)
    event = {"hook_event_name": SESSION_EVENTS[kind], "session_id": session_id, "tool": "",
             "args": {"parent_id": parent_id} if parent_id else {}}
    row = evaluation_row(event, harness, project, "none", [], None, None, {}, "", now)
    row["summary"] = f"session {kind}" + (f" (parent {parent_id})" if parent_id else "")

    def tx(c: sqlite3.Connection) -> None:
        new_id, _ = chain.append(c, row)
        c.execute("INSERT INTO sessions (session_id, harness, project, parent_id, created, compactions, last_seen) "
                  "VALUES (?, ?, ?, ?, ?, 0, ?) ON CONFLICT(session_id) DO NOTHING",
                  (session_id, harness, project, parent_id, now if kind == "created" else None, now))
        if kind == "created":
            c.execute("UPDATE sessions SET created = COALESCE(created, ?), parent_id = COALESCE(parent_id, ?), "
                      "last_seen = ? WHERE session_id = ?", (now, parent_id, now, session_id))
        else:
            c.execute("UPDATE sessions SET compactions = compactions + 1, last_compaction = ?, last_seen = ? "
                      "WHERE session_id = ?", (now, now, session_id))
        _maybe_prune(c, settings, new_id, now)

    store.write(conn, tx, budget)
