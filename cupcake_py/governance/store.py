"""The per-user governance database: SQLite (stdlib `sqlite3`, WAL) at
`<user_state_dir()>/governance.sqlite3`.

Uses the stdlib sqlite3 through its C module `_sqlite3` (same objects; see the import).

In: a path (default `db_path()`) and a time budget in seconds. Out: an open connection whose
schema is at `SCHEMA_VERSION` (migrations run in order inside one `BEGIN IMMEDIATE`
transaction; `PRAGMA user_version` is the version), and `write(conn, fn, budget)`, which runs
`fn(conn)` in a `BEGIN IMMEDIATE` transaction, so concurrent `cupcake eval` processes
serialise their writes (WAL keeps readers unblocked). Waiting for the write lock is bounded:
sqlite's busy timeout plus at most `RETRIES` further attempts, all inside the budget.

Fails: `StoreError` (a CupcakeError) for anything that keeps the database from being used —
the state dir is not private or cannot be created, the file is read-only, locked beyond the
budget, corrupt, or of a newer schema. Callers decide what that means (the audit writer warns,
or fails closed under `audit: required`).

Tables (migration 1): `audit` (hash-chained evaluation records, see chain.py), `chain`
(one row: the head of the chain and the anchor left by pruning), `timeouts` (sessions put in
timeout), `sessions` (lifecycle events from the harness).
"""

from __future__ import annotations

import os
import time

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.userdirs import private_dir, user_state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:  # the same names; typeshed types the public package
    import sqlite3
else:
    try:  # the C core of the stdlib `sqlite3` package: the package's dbapi2 layer adds datetime and
        import _sqlite3 as sqlite3  # collections.abc imports (~2-3 ms per `cupcake eval`) for adapters we do not use
    except ImportError:  # pragma: no cover - an interpreter without the split
        import sqlite3

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

DB_NAME = "governance.sqlite3"
GENESIS = "0" * 64  # prev_hash of the first record ever written
RETRIES = 3  # further BEGIN IMMEDIATE attempts after a busy timeout, while the budget lasts

AUDIT_COLUMNS = ("ts", "harness", "session_id", "project", "event", "tool", "call_key", "summary", "input",
                 "input_sha256", "decision", "rule_ids", "reasons", "error", "timings", "version", "bundle_key")

MIGRATIONS: tuple[str, ...] = (
    f"""
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        ts REAL NOT NULL,
        harness TEXT NOT NULL,
        session_id TEXT NOT NULL,
        project TEXT NOT NULL,
        event TEXT NOT NULL,
        tool TEXT NOT NULL,
        call_key TEXT NOT NULL,
        summary TEXT NOT NULL,
        input TEXT NOT NULL,
        input_sha256 TEXT NOT NULL,
        decision TEXT NOT NULL,
        rule_ids TEXT NOT NULL,
        reasons TEXT NOT NULL,
        error TEXT NOT NULL,
        timings TEXT NOT NULL,
        version TEXT NOT NULL,
        bundle_key TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
    );
    CREATE INDEX audit_session_ts ON audit(session_id, ts, event, decision, tool, rule_ids);
    CREATE INDEX audit_project_ts ON audit(project, ts, event, decision, tool, rule_ids);
    CREATE INDEX audit_ts ON audit(ts);
    CREATE TABLE chain (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        head_id INTEGER NOT NULL,
        head_hash TEXT NOT NULL,
        anchor_id INTEGER NOT NULL,
        anchor_prev TEXT NOT NULL
    );
    INSERT INTO chain VALUES (1, 0, '{GENESIS}', 1, '{GENESIS}');
    CREATE TABLE timeouts (
        session_id TEXT NOT NULL,
        started REAL NOT NULL,
        until REAL NOT NULL,
        rule_id TEXT NOT NULL,
        reason TEXT NOT NULL,
        PRIMARY KEY (session_id, started)
    );
    CREATE INDEX timeouts_until ON timeouts(until);
    CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        harness TEXT NOT NULL,
        project TEXT NOT NULL,
        parent_id TEXT,
        created REAL,
        compactions INTEGER NOT NULL DEFAULT 0,
        last_compaction REAL,
        last_seen REAL NOT NULL
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(CupcakeError):
    pass


def db_path() -> str:
    return os.path.join(user_state_dir(), DB_NAME)


_open: dict[str, sqlite3.Connection] = {}  # one connection per path and process (history read + audit write)


def connect(path: str | None = None, budget: float = 0.25, *, create: bool = True) -> sqlite3.Connection:
    """An open, migrated connection (cached per path for this process)."""
    path = path or db_path()
    conn = _open.get(path)
    if conn is not None:
        conn.execute(f"PRAGMA busy_timeout = {int(budget * 1000)}")
        return conn
    directory = os.path.dirname(path)
    if not create and not os.path.exists(path):
        raise StoreError(f"no governance database at {path} (nothing was audited yet)")
    if not private_dir(directory, "governance state"):
        raise StoreError(f"the state directory {directory} cannot be created or is not private to this user")
    try:
        conn = sqlite3.connect(path, timeout=budget, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise StoreError(f"cannot open {path}: {e}") from None
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            _set_wal(conn, budget)  # persistent: set once, when the file is created
            write(conn, _migrate, budget)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{path} has schema version {version}, newer than this cupcake-py knows "
                             f"({SCHEMA_VERSION}); upgrade cupcake-py")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error as e:
        conn.close()
        raise StoreError(f"cannot use {path}: {e}") from None
    except StoreError:
        conn.close()
        raise
    _open[path] = conn
    return conn


def _set_wal(conn: sqlite3.Connection, budget: float) -> None:
    """Switch to WAL; the switch can answer "database is locked" at once (without sqlite's busy
    handler) while other processes create the same file, so it is retried within `budget`."""
    deadline = time.monotonic() + budget
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if ("locked" not in str(e) and "busy" not in str(e)) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def close_all() -> None:
    while _open:
        _open.popitem()[1].close()


def _migrate(conn: sqlite3.Connection) -> None:
    """Apply the migrations the file lacks (re-read inside the write lock: another process may
    have migrated it meanwhile)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    for i in range(version, SCHEMA_VERSION):
        for statement in MIGRATIONS[i].split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {i + 1}")


def write(conn: sqlite3.Connection, fn: Callable[[sqlite3.Connection], T], budget: float) -> T:
    """`fn(conn)` in one BEGIN IMMEDIATE transaction, committed; rolled back on any error.
    Lock waits are bounded by `budget` seconds (busy timeout + RETRIES attempts)."""
    deadline = time.monotonic() + budget
    attempt = 0
    while True:
        left = deadline - time.monotonic()
        conn.execute(f"PRAGMA busy_timeout = {max(1, int(left * 1000))}")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            attempt += 1
            if attempt > RETRIES or time.monotonic() >= deadline or "locked" not in str(e) and "busy" not in str(e):
                raise StoreError(f"the governance database is busy or unusable: {e} "
                                 f"(waited {budget * 1000:.0f} ms)") from None
            continue
        try:
            out = fn(conn)
            conn.execute("COMMIT")
            return out
        except BaseException as e:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            if isinstance(e, sqlite3.Error):
                raise StoreError(f"governance database write failed: {e}") from None
            raise
