"""Read queries of `cupcake audit` (list, export, stats): filters → SQL with parameters.

`Filters(session, since, until, decision, rule, tool)`; `select(conn, filters, limit, newest_first)`
yields rows in `models.AuditRecord.from_row` order; `stats(conn, filters, scope)` counts.
Rule filters match one id of the comma-joined `rule_ids` exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from cupcake_py.governance.models import Stats
from cupcake_py.governance.store import AUDIT_COLUMNS

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterator


class Filters(NamedTuple):
    session: str | None = None
    since: float | None = None
    until: float | None = None
    decision: str | None = None
    rule: str | None = None
    tool: str | None = None
    project: str | None = None  # the project root the record was made in


def where(f: Filters) -> tuple[str, list[Any]]:
    parts: list[str] = []
    args: list[Any] = []
    for sql, value in (("session_id = ?", f.session), ("ts >= ?", f.since), ("ts < ?", f.until),
                       ("decision = ?", f.decision), ("tool = ?", f.tool), ("project = ?", f.project)):
        if value is not None:
            parts.append(sql)
            args.append(value)
    if f.rule is not None:
        parts.append("(',' || rule_ids || ',') LIKE ? ESCAPE '\\'")
        escaped = f.rule.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        args.append(f"%,{escaped},%")
    return (" WHERE " + " AND ".join(parts)) if parts else "", args


def select(conn: sqlite3.Connection, f: Filters, limit: int | None = None,
           newest_first: bool = False) -> Iterator[tuple[Any, ...]]:
    clause, args = where(f)
    sql = f"SELECT id, {', '.join(AUDIT_COLUMNS)}, prev_hash, hash FROM audit{clause} ORDER BY id"
    if newest_first:
        sql += " DESC"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    yield from conn.execute(sql, args)


def count(conn: sqlite3.Connection, f: Filters) -> int:
    clause, args = where(f)
    n: int = conn.execute(f"SELECT COUNT(*) FROM audit{clause}", args).fetchone()[0]
    return n


def stats(conn: sqlite3.Connection, f: Filters, scope: str) -> Stats:
    clause, args = where(f)
    by_decision: dict[str, int] = {}
    by_rule: dict[str, dict[str, int]] = {}
    by_tool: dict[str, int] = {}
    total = 0
    rows = conn.execute(f"SELECT decision, rule_ids, tool, COUNT(*) FROM audit{clause} GROUP BY 1, 2, 3", args)
    for decision, rule_ids, tool, n in rows:
        total += n
        by_decision[decision] = by_decision.get(decision, 0) + n
        if tool:
            by_tool[tool] = by_tool.get(tool, 0) + n
        for rule in rule_ids.split(",") if rule_ids else []:
            per = by_rule.setdefault(rule, {})
            per[decision] = per.get(decision, 0) + n
    sessions = conn.execute(f"SELECT COUNT(DISTINCT session_id) FROM audit{clause}", args).fetchone()[0]
    return Stats(scope=scope, records=total, by_decision=by_decision, by_rule=by_rule, by_tool=by_tool,
                 sessions=sessions)
