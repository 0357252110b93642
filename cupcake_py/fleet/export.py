"""Decision-log export: every audit record (already redacted when it was written,
governance/audit.py) to OpenTelemetry (OTLP/HTTP logs, through opentelemetry-sdk's exporter) and
to syslog receivers (RFC 5424 lines, or CEF in an RFC 5424 frame), at least once, in id order.

Never on the eval path: `cupcake logs export` (once or `--follow`) and `cupcake serve` run it;
`cupcake eval` only writes the audit record it always writes.

- The spool is the audit database itself: records after a sink's cursor are not exported yet.
  Cursors live in the same database (`export_cursor`: sink -> last exported id, exported and
  dropped counts, last error), created on first use (`CREATE TABLE IF NOT EXISTS`; the audit
  schema's migrations are not touched). A cursor moves only after its sink accepted a batch
  (OTLP: the collector answered success; TCP syslog: every byte was written), so a sink that is
  down for N decisions receives all N, in order, once it is back: at least once (a batch that
  failed half-way may be sent again).
- Bounded: a sink further behind than `spool_max_records` skips the oldest surplus; so do records
  that the audit log's own retention pruned before they were exported. Both are counted as
  `dropped` in the cursor row and in `cupcake status`.
- `decision_log(row, labels)`: one record in the shape of OPA's decision logs (decision_id,
  timestamp, path, input, result, labels) plus cupcake's fields (session_id, harness, tool, ...).

Fails: `ExportError` from a sink (the round stops for that sink, its cursor stays).
"""

from __future__ import annotations

import json
import os
import socket
import time

from cupcake_py import __version__
from cupcake_py.core.errors import CupcakeError
from cupcake_py.governance import store

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    from cupcake_py.engine.fleet_config import OTLP, DecisionLogs, Syslog

CURSOR_TABLE = """CREATE TABLE IF NOT EXISTS export_cursor (
    sink TEXT PRIMARY KEY,
    last_id INTEGER NOT NULL,
    exported INTEGER NOT NULL DEFAULT 0,
    dropped INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    updated REAL NOT NULL DEFAULT 0
)"""
PATH = "cupcake/system/evaluate"
SEVERITY = {"halt": 3, "deny": 4, "block": 4, "ask": 5, "modify": 5, "allow": 6, "none": 6}  # syslog severities
CEF_SEVERITY = {"halt": 10, "deny": 8, "block": 8, "ask": 5, "modify": 4, "allow": 1, "none": 0}
FACILITY = 13  # log audit (RFC 5424 table 1)
SD_ID = "cupcake@32473"  # 32473: the enterprise number RFC 5612 reserves for documentation
BUDGET = 5.0


class ExportError(CupcakeError):
    pass


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + f".{int(ts * 1e6) % 1_000_000:06d}Z"


def decision_log(row: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    try:
        input_value = json.loads(row["input"])
    except ValueError:
        input_value = row["input"]  # a clipped input stays text
    return {
        "decision_id": row["hash"], "id": row["id"], "timestamp": _iso(row["ts"]), "path": PATH,
        "labels": {"id": os.uname().nodename, "version": f"cupcake-py {__version__}", **labels},
        "input": input_value, "input_sha256": row["input_sha256"],
        "result": {"decision": row["decision"], "rule_ids": row["rule_ids"].split(",") if row["rule_ids"] else [],
                   "reasons": json.loads(row["reasons"]), "error": row["error"]},
        "session_id": row["session_id"], "harness": row["harness"], "project": row["project"],
        "event": row["event"], "tool": row["tool"], "call_key": row["call_key"], "summary": row["summary"],
        "bundle_key": row["bundle_key"], "cupcake_version": row["version"],
    }


# ----------------------------------------------------------------------------- sinks


class OTLPSink:
    """OTLP/HTTP logs through opentelemetry-sdk's OTLPLogExporter; one log record per decision:
    body = the decision log (JSON text), attributes = the fields a collector filters on."""

    def __init__(self, cfg: OTLP, labels: dict[str, str]) -> None:
        try:
            from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
            from opentelemetry.sdk.resources import Resource
        except ImportError as e:
            raise ExportError(f"OTLP export needs the `fleet` extra (pip install 'cupcake-py[fleet]'): {e}") from None

        self.name = f"otlp:{cfg.endpoint}"
        self.exporter = OTLPLogExporter(endpoint=cfg.endpoint, headers=dict(cfg.headers), timeout=cfg.timeout_seconds)
        self.resource = Resource.create({"service.name": "cupcake", "service.version": __version__,
                                         "host.name": os.uname().nodename, **labels})

    def send(self, logs: list[dict[str, Any]]) -> None:
        from opentelemetry._logs import LogRecord, SeverityNumber
        from opentelemetry.sdk._logs import ReadableLogRecord
        from opentelemetry.sdk._logs.export import LogRecordExportResult

        severity = {3: SeverityNumber.ERROR, 4: SeverityNumber.WARN, 5: SeverityNumber.INFO2, 6: SeverityNumber.INFO}
        batch = []
        for d in logs:
            level = SEVERITY.get(d["result"]["decision"], 6)
            record = LogRecord(
                timestamp=int(_ts(d) * 1e9), observed_timestamp=time.time_ns(), severity_number=severity[level],
                severity_text=d["result"]["decision"], body=json.dumps(d, sort_keys=True), event_name="cupcake.decision",
                attributes={"cupcake.decision_id": d["decision_id"], "cupcake.id": d["id"],
                            "cupcake.decision": d["result"]["decision"],
                            "cupcake.rule_ids": ",".join(d["result"]["rule_ids"]),
                            "cupcake.session_id": d["session_id"], "cupcake.harness": d["harness"],
                            "cupcake.tool": d["tool"], "cupcake.event": d["event"]})
            batch.append(ReadableLogRecord(record, resource=self.resource))
        if self.exporter.export(batch) != LogRecordExportResult.SUCCESS:
            raise ExportError(f"{self.name}: the collector did not accept the batch")

    def close(self) -> None:
        self.exporter.shutdown()  # type: ignore[no-untyped-call]


def _ts(d: dict[str, Any]) -> float:
    import calendar

    t = d["timestamp"]
    return calendar.timegm(time.strptime(t[:19], "%Y-%m-%dT%H:%M:%S")) + int(t[20:26]) / 1e6


def _sd_value(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("]", "\\]")


def rfc5424(d: dict[str, Any], msg: str | None = None) -> str:
    """One RFC 5424 message (without transport framing)."""
    r = d["result"]
    pri = FACILITY * 8 + SEVERITY.get(r["decision"], 6)
    params = {"decision": r["decision"], "rule_ids": ",".join(r["rule_ids"]), "session": d["session_id"],
              "harness": d["harness"], "tool": d["tool"], "id": str(d["id"]), "decision_id": d["decision_id"]}
    sd = f"[{SD_ID} " + " ".join(f'{k}="{_sd_value(v)}"' for k, v in params.items()) + "]"
    host = os.uname().nodename[:255] or "-"
    body = msg if msg is not None else json.dumps(d, sort_keys=True, separators=(",", ":"))
    return f"<{pri}>1 {d['timestamp']} {host} cupcake {os.getpid()} decision {sd} {body}"


def _cef_header(v: str) -> str:
    return v.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _cef_ext(v: str) -> str:
    return v.replace("\\", "\\\\").replace("=", "\\=").replace("\r", "\\r").replace("\n", "\\n")


def cef(d: dict[str, Any]) -> str:
    """One CEF:0 event (ArcSight's Common Event Format)."""
    r = d["result"]
    signature = r["rule_ids"][0] if r["rule_ids"] else f"decision-{r['decision']}"
    ext = {"rt": str(int(_ts(d) * 1000)), "act": r["decision"], "externalId": str(d["id"]),
           "cs1Label": "session", "cs1": d["session_id"], "cs2Label": "rule_ids", "cs2": ",".join(r["rule_ids"]),
           "cs3Label": "tool", "cs3": d["tool"], "cs4Label": "decision_id", "cs4": d["decision_id"],
           "msg": "; ".join(r["reasons"]) or r["error"], "request": d["summary"]}
    return (f"CEF:0|Cupcake|cupcake-py|{_cef_header(__version__)}|{_cef_header(signature)}|"
            f"{_cef_header(d['summary'][:128] or d['event'])}|{CEF_SEVERITY.get(r['decision'], 0)}|"
            + " ".join(f"{k}={_cef_ext(v)}" for k, v in ext.items()))


class SyslogSink:
    """RFC 5424 (or CEF inside an RFC 5424 frame) over TCP with octet-counting framing (RFC 6587)
    or over UDP (one datagram per record: nothing confirms delivery, so UDP is at most once)."""

    def __init__(self, cfg: Syslog) -> None:
        host, _, port = cfg.address.rpartition(":")
        if not host or not port.isdigit():
            raise ExportError(f"syslog address {cfg.address!r}: expected host:port")
        self.addr = (host.strip("[]"), int(port))
        self.cfg = cfg
        self.name = f"syslog:{cfg.transport}:{cfg.address}:{cfg.format}"

    def line(self, d: dict[str, Any]) -> bytes:
        return rfc5424(d, cef(d) if self.cfg.format == "cef" else None).encode("utf-8")

    def send(self, logs: list[dict[str, Any]]) -> None:
        lines = [self.line(d) for d in logs]
        try:
            if self.cfg.transport == "udp":
                with socket.socket(socket.AF_INET6 if ":" in self.addr[0] else socket.AF_INET, socket.SOCK_DGRAM) as s:
                    for m in lines:
                        s.sendto(m[:65000], self.addr)
                return
            with socket.create_connection(self.addr, timeout=BUDGET) as s:
                s.sendall(b"".join(str(len(m)).encode() + b" " + m for m in lines))
                s.shutdown(socket.SHUT_WR)
                s.settimeout(BUDGET)
                try:  # wait for the receiver to close: the bytes were taken off the socket
                    s.recv(1)
                except OSError:
                    pass
        except OSError as e:
            raise ExportError(f"{self.name}: {e.strerror or e}") from None

    def close(self) -> None:
        pass


def sinks_for(cfg: DecisionLogs, labels: dict[str, str]) -> list[Any]:
    out: list[Any] = [OTLPSink(cfg.otlp, labels)] if cfg.otlp is not None else []
    return out + [SyslogSink(s) for s in cfg.syslog]


# ----------------------------------------------------------------------------- cursor and rounds


_conns: dict[tuple[str, int], sqlite3.Connection] = {}


def _conn(db: str | None, create: bool = True) -> sqlite3.Connection:
    """The exporter's own connection per database and thread: store.connect's is shared by the
    process's evaluations (`cupcake serve` answers requests while this runs in another thread), and
    one connection must never carry two threads' transactions."""
    import sqlite3
    import threading

    path = db or store.db_path()
    key = (path, threading.get_ident())
    conn = _conns.get(key)
    if conn is None:
        if not os.path.exists(path):
            raise ExportError(f"no audit database at {path} yet (nothing was recorded yet, or the rulebooks say audit: off)")
        try:
            conn = sqlite3.connect(path, timeout=BUDGET, isolation_level=None, check_same_thread=False)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as e:
            raise ExportError(f"cannot open {path}: {e}") from None
        if version < 1:
            conn.close()
            raise ExportError(f"{path} has no audit schema yet")
        _conns[key] = conn
    if create:
        store.write(conn, lambda c: c.execute(CURSOR_TABLE), BUDGET)
    return conn


def close_all() -> None:
    while _conns:
        _conns.popitem()[1].close()


def _cursor(conn: sqlite3.Connection, sink: str) -> tuple[int, int, int, str]:
    row = conn.execute("SELECT last_id, exported, dropped, last_error FROM export_cursor WHERE sink = ?",
                       (sink,)).fetchone()
    return (0, 0, 0, "") if row is None else (row[0], row[1], row[2], row[3])


def _save(conn: sqlite3.Connection, sink: str, last_id: int, exported: int, dropped: int, error: str) -> None:
    store.write(conn, lambda c: c.execute(
        "INSERT INTO export_cursor (sink, last_id, exported, dropped, last_error, updated) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(sink) DO UPDATE SET last_id = excluded.last_id, exported = excluded.exported, "
        "dropped = excluded.dropped, last_error = excluded.last_error, updated = excluded.updated",
        (sink, last_id, exported, dropped, error, time.time())), BUDGET)


_COLUMNS = ("id", *store.AUDIT_COLUMNS, "prev_hash", "hash")
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM audit WHERE id > ? ORDER BY id LIMIT ?"


def export_round(cfg: DecisionLogs, sinks: list[Any], labels: dict[str, str], db: str | None = None) \
        -> dict[str, dict[str, Any]]:
    """Export everything after each sink's cursor; per sink {sent, dropped, error, cursor}."""
    conn = _conn(db)
    first, head = conn.execute("SELECT COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM audit").fetchone()
    out: dict[str, dict[str, Any]] = {}
    for sink in sinks:
        last, exported, dropped, _ = _cursor(conn, sink.name)
        skipped = 0
        if first and last < first - 1:  # pruned by retention before export
            skipped += first - 1 - last
            last = first - 1
        if head - last > cfg.spool_max_records:  # over the spool bound: the oldest surplus goes
            skipped += head - last - cfg.spool_max_records
            last = head - cfg.spool_max_records
        sent, error = 0, ""
        while True:
            rows = conn.execute(_SELECT, (last, cfg.batch_size)).fetchall()
            if not rows:
                break
            logs = [decision_log(dict(zip(_COLUMNS, r, strict=True)), labels) for r in rows]
            try:
                sink.send(logs)
            except ExportError as e:
                error = str(e)
                break
            except Exception as e:  # noqa: BLE001 - any sink failure keeps the cursor where it is
                error = f"{sink.name}: {type(e).__name__}: {e}"
                break
            last = rows[-1][0]
            sent += len(rows)
            _save(conn, sink.name, last, exported + sent, dropped + skipped, "")
        _save(conn, sink.name, last, exported + sent, dropped + skipped, error)
        out[sink.name] = {"sent": sent, "dropped": skipped, "error": error, "cursor": last, "head": head}
    return out


def status(cfg: DecisionLogs, db: str | None = None) -> dict[str, Any]:
    """Per sink: cursor, backlog, exported, dropped, last error (nothing when no audit db exists)."""
    names = ([f"otlp:{cfg.otlp.endpoint}"] if cfg.otlp is not None else []) + \
        [f"syslog:{s.transport}:{s.address}:{s.format}" for s in cfg.syslog]
    try:
        conn = _conn(db, create=False)
        has = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'export_cursor'").fetchone() is not None
        head = conn.execute("SELECT COALESCE(MAX(id), 0) FROM audit").fetchone()[0]
    except CupcakeError as e:
        return {"sinks": {n: {"error": str(e)} for n in names}}
    sinks = {}
    for n in names:
        last, exported, dropped, error = _cursor(conn, n) if has else (0, 0, 0, "")
        sinks[n] = {"cursor": last, "backlog": max(0, head - last), "exported": exported, "dropped": dropped,
                    "last_error": error}
    return {"sinks": sinks, "spool_max_records": cfg.spool_max_records}


def run(cfg: DecisionLogs, labels: dict[str, str], stop: Any, db: str | None = None) -> None:
    """Export rounds every `min_delay_seconds` until `stop` (a threading.Event) is set."""
    try:
        sinks = sinks_for(cfg, labels)
    except CupcakeError as e:
        from cupcake_py.core.userdirs import warn

        warn(f"decision logs are not exported: {e}")
        return
    try:
        while not stop.is_set():
            try:
                export_round(cfg, sinks, labels, db)
            except CupcakeError:
                pass  # the database is busy or missing: the next round tries again
            stop.wait(cfg.min_delay_seconds)
    finally:
        for s in sinks:
            s.close()
        close_all()
