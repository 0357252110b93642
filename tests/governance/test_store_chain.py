"""The governance database: migrations, bounded writes, the hash chain (tamper detection) and
retention. In-process; the concurrent-process acceptance test is in test_audit_eval.py."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest

from cupcake_py.governance import audit, chain, store
from tests.governance.helpers import SETTINGS, row

T0 = 1_800_000_000.0


def _fill(db: str, n: int, start: float = T0, step: float = 1.0) -> sqlite3.Connection:
    for i in range(n):
        audit.write_evaluation(SETTINGS, row(start + i * step, command=f"echo {i}"), start + i * step, db)
    return store.connect(db)


def test_schema_is_migrated_once_and_versioned(db: str) -> None:
    conn = store.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"audit", "chain", "timeouts", "sessions"} <= tables
    store.close_all()
    assert store.connect(db).execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION


def test_a_newer_schema_is_refused(db: str) -> None:
    store.connect(db).execute(f"PRAGMA user_version = {store.SCHEMA_VERSION + 1}")
    store.close_all()
    with pytest.raises(store.StoreError, match="newer than this cupcake-py"):
        store.connect(db)


def test_a_state_dir_others_can_write_is_not_used(tmp_path: os.PathLike[str]) -> None:
    d = os.path.join(tmp_path, "shared")
    os.makedirs(d)
    os.chmod(d, 0o777)
    with pytest.raises(store.StoreError, match="not private"):
        store.connect(os.path.join(d, "governance.sqlite3"))


def test_intact_chain_verifies(db: str) -> None:
    conn = _fill(db, 20)
    v = chain.verify(conn)
    assert v.ok and v.records == 20 and v.head_id == 20


@pytest.mark.parametrize("tamper, expected", [
    ("UPDATE audit SET decision = 'allow' WHERE id = 7", "record 7: content does not match its hash"),
    ("UPDATE audit SET reasons = '[]', rule_ids = '' WHERE id = 3", "record 3: content does not match"),
    ("UPDATE audit SET ts = ts - 3600 WHERE id = 12", "record 12: content does not match"),
    ("DELETE FROM audit WHERE id = 10", "record(s) 10..10 deleted"),
    ("DELETE FROM audit WHERE id >= 19", "the chain head says record 20 is the last one"),
    ("DELETE FROM audit WHERE id <= 2", "record(s) 1..2 deleted"),
    ("UPDATE chain SET anchor_id = 3", "record 1: inserted out of order"),
])
def test_tampering_is_reported(db: str, tamper: str, expected: str) -> None:
    for i in range(20):
        r = row(T0 + i, decision="deny", rules=("R1",), reason="no") if i % 2 == 0 else row(T0 + i)
        audit.write_evaluation(SETTINGS, r, T0 + i, db)
    conn = store.connect(db)
    assert chain.verify(conn).ok
    conn.execute(tamper)
    v = chain.verify(conn)
    assert not v.ok
    assert any(expected in p for p in v.problems), v.problems


def test_an_edit_that_recomputes_one_hash_breaks_the_next_link(db: str) -> None:
    conn = _fill(db, 5)
    values = list(conn.execute(f"SELECT {', '.join(store.AUDIT_COLUMNS)} FROM audit WHERE id = 2").fetchone())
    values[store.AUDIT_COLUMNS.index("decision")] = "deny"
    prev = conn.execute("SELECT prev_hash FROM audit WHERE id = 2").fetchone()[0]
    conn.execute("UPDATE audit SET decision = 'deny', hash = ? WHERE id = 2", (chain.record_hash(2, prev, values),))
    v = chain.verify(conn)
    assert v.problems == ["record 3: prev_hash does not match the previous record's hash "
                          "(a record before it was deleted or edited)"]


def test_retention_prunes_old_records_and_the_chain_still_verifies(db: str) -> None:
    conn = _fill(db, 10, start=T0 - 40 * 86400, step=86400)  # one record a day, 40 to 31 days ago
    _fill(db, 5, start=T0 - 100)
    settings = {**SETTINGS, "retention_days": 30}
    deleted = store.write(conn, lambda c: chain.prune(c, T0 - settings["retention_days"] * 86400, 10**9), 1.0)
    assert deleted == 10
    assert conn.execute("SELECT MIN(id), COUNT(*) FROM audit").fetchone() == (11, 5)
    assert chain.verify(conn).ok
    assert store.write(conn, lambda c: chain.prune(c, 0, 2), 1.0) == 3  # row cap: the newest 2 kept
    assert chain.verify(conn).ok
    assert store.write(conn, lambda c: chain.prune(c, T0 + 1, 10), 1.0) == 2  # everything expired
    assert chain.verify(conn).ok
    audit.write_evaluation(SETTINGS, row(T0 + 2), T0 + 2, db)  # the chain continues after the anchor
    v = chain.verify(conn)
    assert v.ok and v.records == 1 and v.head_id == 16


def test_writes_prune_by_the_rulebook_settings(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit, "PRUNE_EVERY", 4)
    settings = {**SETTINGS, "max_rows": 100, "retention_days": 1}
    for i in range(12):
        ts = T0 - 3 * 86400 if i < 6 else T0 + i
        audit.write_evaluation(settings, row(ts), ts, db)
    conn = store.connect(db)
    assert conn.execute("SELECT MIN(id) FROM audit").fetchone()[0] == 7  # pruned at record 8 (id % 4 == 0)
    assert chain.verify(conn).ok


def test_a_clock_set_back_never_prunes_newer_records(db: str) -> None:
    conn = _fill(db, 3, start=T0)
    _fill(db, 2, start=T0 - 90 * 86400)  # written later, stamped long ago (clock set back)
    assert store.write(conn, lambda c: chain.prune(c, T0 - 86400, 10**9), 1.0) == 0
    assert chain.verify(conn).ok


def test_a_locked_database_fails_within_the_budget(db: str) -> None:
    store.connect(db)
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        settings = {**SETTINGS, "write_budget_ms": 100}
        with pytest.raises(store.StoreError, match="busy"):
            audit.write_evaluation(settings, row(T0), T0, db)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    audit.write_evaluation(SETTINGS, row(T0), T0, db)
    assert chain.verify(store.connect(db)).records == 1


def test_a_read_only_database_is_an_error_not_a_crash(db: str) -> None:
    _fill(db, 1)
    store.close_all()
    os.chmod(db, stat.S_IRUSR)
    try:
        if os.access(db, os.W_OK):
            pytest.skip("running as a user that can write read-only files")
        with pytest.raises(store.StoreError):
            audit.write_evaluation(SETTINGS, row(T0), T0, db)
    finally:
        os.chmod(db, stat.S_IRUSR | stat.S_IWUSR)


@pytest.mark.parametrize("damage", ["corrupt file", "state dir is a file"])
def test_an_unusable_database_is_a_store_error(db: str, damage: str) -> None:
    if damage == "corrupt file":
        with open(db, "wb") as f:
            f.write(b"this is not a database" * 100)
        target = db
    else:
        os.rmdir(os.path.dirname(db))
        with open(os.path.dirname(db), "w") as f:
            f.write("x")
        target = db
    with pytest.raises(store.StoreError):
        audit.write_evaluation(SETTINGS, row(T0), T0, target)


def test_a_halt_by_a_timeout_rule_starts_one_timeout(db: str) -> None:
    r = row(T0, decision="halt", rules=("BUILTIN-ESCALATION",), reason="in timeout")
    audit.write_evaluation(SETTINGS, r, T0, db)
    audit.write_evaluation(SETTINGS, row(T0 + 5, decision="halt", rules=("BUILTIN-ESCALATION",)), T0 + 5, db)
    audit.write_evaluation(SETTINGS, row(T0 + 6, decision="halt", rules=("OTHER",)), T0 + 6, db)
    rows = store.connect(db).execute("SELECT session_id, started, until, rule_id, reason FROM timeouts").fetchall()
    assert rows == [("s1", T0, T0 + 600, "BUILTIN-ESCALATION", "in timeout")]


WRITER = """
import sys
from cupcake_py.governance import audit
from tests.governance.helpers import SETTINGS, row
i = int(sys.argv[2])
audit.write_evaluation({**SETTINGS, "write_budget_ms": 5000}, row(1.8e9 + i, session=f"c{i}"), 1.8e9 + i, sys.argv[1])
print("ok")
"""


def test_concurrent_first_use_creates_one_schema_and_loses_nothing(db: str) -> None:
    """Many processes writing to a database that does not exist yet (migration + WAL switch race)."""
    import subprocess
    import sys
    from pathlib import Path

    repo = str(Path(__file__).resolve().parents[2])
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, db, str(i)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=repo) for i in range(16)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [o.strip() for o, _ in outs] == ["ok"] * 16, [e[-500:] for _, e in outs]
    conn = store.connect(db)
    v = chain.verify(conn)
    assert v.ok and v.records == 16
    assert conn.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION


def test_integer_timestamps_still_verify(db: str) -> None:
    audit.write_evaluation(SETTINGS, row(1_800_000_000), 1_800_000_000, db)  # type: ignore[arg-type]
    assert chain.verify(store.connect(db)).ok
