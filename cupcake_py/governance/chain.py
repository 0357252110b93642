"""The audit log's hash chain: append one record, verify the chain, prune under it.

Each record's `hash` is sha256 over the compact JSON array [id, prev_hash, *AUDIT_COLUMNS
values], where `prev_hash` is the previous record's `hash` (GENESIS for the first one ever).
The `chain` row holds the head (last id and hash) and the anchor (the first id still stored
and the prev_hash it must carry), both updated in the same transaction as the records.

- `append(conn, row) -> (id, hash)`: inside a write transaction (store.write).
- `verify(conn, progress) -> Verification`: every stored record recomputed in id order;
  reports edited records (hash mismatch), deleted or inserted ones (id gap, prev_hash that
  does not match), and a head or anchor that does not match the records.
- `prune(conn, before_ts, keep_rows) -> int`: deletes the oldest records — those before the
  first one at or after `before_ts`, and those beyond the newest `keep_rows` — and moves the
  anchor to the first record kept.

What it cannot detect: someone who rewrites the whole file consistently (records, hashes and
the chain row). Export the head hash (`cupcake audit verify --json`) to a place the agent
cannot write to anchor it externally.
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.core.record import Record
from cupcake_py.engine.bundle import sha256  # the builtin sha256 (hashlib loads OpenSSL: ~2 ms)
from cupcake_py.governance.store import AUDIT_COLUMNS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from typing import Any

_INSERT = (f"INSERT INTO audit (id, {', '.join(AUDIT_COLUMNS)}, prev_hash, hash) "
           f"VALUES ({', '.join('?' * (len(AUDIT_COLUMNS) + 3))})")


def record_hash(record_id: int, prev_hash: str, values: list[Any] | tuple[Any, ...]) -> str:
    return sha256(jsonio.dumps([record_id, prev_hash, *values])).hexdigest()


def append(conn: sqlite3.Connection, row: dict[str, Any]) -> tuple[int, str]:
    head_id, head_hash = conn.execute("SELECT head_id, head_hash FROM chain WHERE id = 1").fetchone()
    new_id = head_id + 1
    values = [row[c] for c in AUDIT_COLUMNS]
    h = record_hash(new_id, head_hash, values)
    conn.execute(_INSERT, (new_id, *values, head_hash, h))
    conn.execute("UPDATE chain SET head_id = ?, head_hash = ? WHERE id = 1", (new_id, h))
    return new_id, h


class Verification(Record):
    __slots__ = ("records", "problems", "head_id", "head_hash")
    records: int
    problems: list[str]
    head_id: int
    head_hash: str

    def __init__(self, records: int, problems: list[str], head_id: int, head_hash: str) -> None:
        self._fill(records, problems, head_id, head_hash)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(conn: sqlite3.Connection, progress: Callable[[int], None] | None = None) -> Verification:
    head_id, head_hash, anchor_id, anchor_prev = conn.execute(
        "SELECT head_id, head_hash, anchor_id, anchor_prev FROM chain WHERE id = 1").fetchone()
    problems: list[str] = []
    expect_id, expect_prev = anchor_id, anchor_prev
    n = 0
    cur = conn.execute(f"SELECT id, {', '.join(AUDIT_COLUMNS)}, prev_hash, hash FROM audit ORDER BY id")
    for row in cur:
        rid, values, prev, h = row[0], row[1:-2], row[-2], row[-1]
        if rid != expect_id:
            what = "deleted" if rid > expect_id else "inserted"
            problems.append(f"record(s) {expect_id}..{rid - 1} {what} (ids jump from {expect_id - 1} to {rid})"
                            if rid > expect_id else f"record {rid}: {what} out of order")
        if prev != expect_prev:
            problems.append(f"record {rid}: prev_hash does not match the previous record's hash "
                            "(a record before it was deleted or edited)")
        if record_hash(rid, prev, values) != h:
            problems.append(f"record {rid}: content does not match its hash (edited)")
        expect_id, expect_prev = rid + 1, h
        n += 1
        if progress is not None and n % 1000 == 0:
            progress(n)
    if progress is not None:
        progress(n)
    if expect_id - 1 != head_id or expect_prev != head_hash:
        problems.append(f"the chain head says record {head_id} is the last one, the log ends at {expect_id - 1} "
                        "(records at the end were deleted, or the head was edited)")
    return Verification(n, problems, head_id, head_hash)


def prune(conn: sqlite3.Connection, before_ts: float, keep_rows: int) -> int:
    """Delete expired records (and timeouts that ended before `before_ts`); the anchor moves
    to the first record kept. Runs inside a write transaction."""
    head_id, head_hash = conn.execute("SELECT head_id, head_hash FROM chain WHERE id = 1").fetchone()
    # A prefix only (the chain stays verifiable): up to the first record that is still young
    # enough, or beyond the newest keep_rows. A clock set back never deletes newer records.
    young = conn.execute("SELECT MIN(id) FROM audit WHERE ts >= ?", (before_ts,)).fetchone()[0]
    cutoff = max(head_id if young is None else young - 1, head_id - keep_rows)
    deleted = conn.execute("DELETE FROM audit WHERE id <= ?", (cutoff,)).rowcount
    conn.execute("DELETE FROM timeouts WHERE until < ?", (before_ts,))
    conn.execute("DELETE FROM sessions WHERE last_seen < ?", (before_ts,))
    if deleted:
        first = conn.execute("SELECT id, prev_hash FROM audit ORDER BY id LIMIT 1").fetchone()
        anchor = first if first is not None else (head_id + 1, head_hash)
        conn.execute("UPDATE chain SET anchor_id = ?, anchor_prev = ? WHERE id = 1", anchor)
    return deleted

