"""Decision-log export to a loopback OTLP/HTTP receiver (protobuf decoded with opentelemetry-proto)
and a TCP syslog listener: records arrive redacted, in order; a collector down for 10,000 decisions
gets every one of them (at least once, in order per session) once it is back; the spool bound
drops the oldest surplus and counts it; a sink's failure leaves its cursor where it was; nothing of
the exporter is imported by `cupcake eval`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from cupcake_py.engine.fleet_config import parse
from cupcake_py.fleet import export
from cupcake_py.governance import chain, store
from tests.fleet.conftest import Machine
from tests.fleet.servers import OTLPReceiver, SyslogListener
from tests.governance.helpers import row

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"


@pytest.fixture()
def receiver() -> Iterator[OTLPReceiver]:
    r = OTLPReceiver()
    yield r
    r.close()


@pytest.fixture()
def syslog() -> Iterator[SyslogListener]:
    s = SyslogListener()
    yield s
    s.close()


def write_records(n: int, sessions: int = 1, start: float = 1_800_000_000.0, command: str = "ls") -> None:
    rows = [row(start + i * 0.001, session=f"s{i % sessions}", command=f"{command} {i}",
                decision="deny" if i % 3 == 0 else "allow", rules=("R-1",) if i % 3 == 0 else ()) for i in range(n)]
    conn = store.connect(None, 5.0)

    def tx(c: object) -> None:
        for r in rows:
            chain.append(c, r)  # type: ignore[arg-type]

    store.write(conn, tx, 5.0)


def config(receiver: OTLPReceiver | None, syslog: SyslogListener | None, fmt: str = "rfc5424", **extra: object) \
        -> export.DecisionLogs:  # type: ignore[name-defined]
    text = "labels: {fleet: test}\ndecision_logs:\n"
    if receiver is not None:
        text += f"  otlp: {{endpoint: '{receiver.endpoint}', timeout_seconds: 1}}\n"
    if syslog is not None:
        text += f"  syslog: [{{address: '{syslog.address}', format: {fmt}}}]\n"
    text += "".join(f"  {k}: {v}\n" for k, v in extra.items())
    cfg = parse(text, "fleet.yml")
    assert cfg.decision_logs is not None
    return cfg.decision_logs


def round_(cfg: object) -> dict[str, dict[str, object]]:
    sinks = export.sinks_for(cfg, {"fleet": "test"})  # type: ignore[arg-type]
    try:
        return export.export_round(cfg, sinks, {"fleet": "test"})  # type: ignore[arg-type]
    finally:
        for s in sinks:
            s.close()


RFC5424 = re.compile(r"^<(\d+)>1 (\S+) (\S+) cupcake (\d+) decision \[cupcake@32473 (.*?)\] (.*)$", re.S)


def test_records_reach_otlp_and_syslog_redacted_and_in_order(machine: Machine, receiver: OTLPReceiver,
                                                             syslog: SyslogListener) -> None:
    write_records(30, sessions=3, command=f"curl -H 'Authorization: token {SECRET}' x")
    result = round_(config(receiver, syslog))
    assert all(r["sent"] == 30 and r["error"] == "" for r in result.values()), result
    assert len(receiver.records) == 30
    ids = [attrs["cupcake.id"] for attrs, _ in receiver.records]
    assert ids == sorted(ids) == list(range(1, 31))
    attrs, body = receiver.records[0]
    log = json.loads(body)
    assert attrs["cupcake.decision"] == "deny" and attrs["cupcake.rule_ids"] == "R-1"
    assert log["result"]["decision"] == "deny" and log["path"] == "cupcake/system/evaluate"
    assert log["labels"]["fleet"] == "test" and log["decision_id"] == attrs["cupcake.decision_id"]
    assert all(SECRET not in b for _, b in receiver.records) and "REDACTED" in body
    assert len(syslog.messages) == 30
    m = RFC5424.match(syslog.messages[0])
    assert m is not None, syslog.messages[0]
    assert int(m.group(1)) == 13 * 8 + 4  # facility log audit, severity warning for a deny
    assert 'decision="deny"' in m.group(5) and SECRET not in syslog.messages[0]
    assert json.loads(m.group(6))["id"] == 1
    # a second round sends nothing new: the cursors moved
    assert all(r["sent"] == 0 for r in round_(config(receiver, syslog)).values())


def test_cef_lines(machine: Machine, syslog: SyslogListener) -> None:
    write_records(3)
    round_(config(None, syslog, fmt="cef"))
    assert len(syslog.messages) == 3
    line = syslog.messages[0]
    cef = line[line.index("CEF:0|"):]
    assert cef.startswith("CEF:0|Cupcake|cupcake-py|")
    header = cef.split("|")
    assert header[4] == "R-1" and header[6] == "8"  # signature id, severity of a deny
    assert "act=deny" in cef and "externalId=1" in cef


def test_collector_down_for_ten_thousand_decisions(machine: Machine, receiver: OTLPReceiver) -> None:
    cfg = config(receiver, None, batch_size=2000)
    receiver.down = True
    for chunk in range(4):  # 10,000 decisions while the collector answers 503; an export round after each chunk
        write_records(2500, sessions=7, start=1_800_000_000.0 + chunk * 10)
        result = round_(cfg)
        [r] = result.values()
        assert r["sent"] == 0 and r["error"], r
    assert receiver.records == []
    st = export.status(cfg)
    [s] = st["sinks"].values()
    assert s["backlog"] == 10_000 and s["cursor"] == 0 and s["last_error"]
    receiver.down = False
    [r] = round_(cfg).values()
    assert (r["sent"], r["error"], r["dropped"]) == (10_000, "", 0), r
    ids = [a["cupcake.id"] for a, _ in receiver.records]
    assert set(ids) == set(range(1, 10_001))  # every record at least once
    by_session: dict[str, list[int]] = {}
    for a, _ in receiver.records:
        by_session.setdefault(a["cupcake.session_id"], []).append(a["cupcake.id"])
    assert len(by_session) == 7 and all(v == sorted(v) for v in by_session.values())  # in order per session
    [s] = export.status(cfg)["sinks"].values()
    assert (s["backlog"], s["exported"], s["last_error"]) == (0, 10_000, "")


def test_spool_bound_drops_the_oldest_and_counts_them(machine: Machine, receiver: OTLPReceiver) -> None:
    cfg = config(receiver, None, spool_max_records=100)
    write_records(250)
    [r] = round_(cfg).values()
    assert (r["sent"], r["dropped"]) == (100, 150)
    assert [a["cupcake.id"] for a, _ in receiver.records] == list(range(151, 251))
    [s] = export.status(cfg)["sinks"].values()
    assert s["dropped"] == 150


def test_a_sink_that_fails_keeps_its_cursor_while_the_other_advances(machine: Machine, receiver: OTLPReceiver,
                                                                     syslog: SyslogListener) -> None:
    write_records(5)
    address = syslog.address
    syslog.close()  # nothing listens there any more
    cfg = parse(f"decision_logs:\n  otlp: {{endpoint: '{receiver.endpoint}'}}\n"
                f"  syslog: [{{address: '{address}'}}]\n", "f").decision_logs
    result = round_(cfg)
    by_kind = {k.split(":")[0]: v for k, v in result.items()}
    assert by_kind["otlp"]["sent"] == 5 and by_kind["syslog"]["sent"] == 0 and by_kind["syslog"]["error"]
    assert export.status(cfg)["sinks"][f"syslog:tcp:{address}:rfc5424"]["backlog"] == 5  # type: ignore[index]


def test_eval_never_imports_the_exporters(machine: Machine, receiver: OTLPReceiver) -> None:
    """`cupcake eval` with decision logs configured loads neither OpenTelemetry nor PyJWT nor the fleet
    package (export is never on the eval hot path)."""
    machine.fleet_yml(f"decision_logs:\n  otlp: {{endpoint: '{receiver.endpoint}'}}\n")
    (machine.org / "policies/opencode").mkdir(parents=True)
    from tests.fleet.helpers import ORG_DENY_CURL, bash

    (machine.org / "policies/opencode/curl.rego").write_text(ORG_DENY_CURL)
    code = ("import sys, runpy; sys.argv = ['cupcake', 'eval']\n"
            "from cupcake_py.app.fast_eval import main\n"
            "rc = main([])\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('opentelemetry', 'jwt', 'requests') "
            "or m.startswith('cupcake_py.fleet'))\n"
            "sys.stderr.write('IMPORTED:' + ','.join(bad) + '\\n')\n")
    for _ in range(2):  # the second run is the warm one (caches written by the first)
        proc = subprocess.run([sys.executable, "-c", code], input=bash(machine.project, "curl x"), capture_output=True,
                              env=machine.env, cwd=machine.project, timeout=120)
    assert json.loads(proc.stdout)["decision"] == "deny"
    assert "IMPORTED:\n" in proc.stderr.decode(), proc.stderr.decode()[-500:]


def test_udp_syslog_datagrams(machine: Machine) -> None:
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(10)
    try:
        write_records(3)
        cfg = parse(f"decision_logs:\n  syslog: [{{address: '127.0.0.1:{sock.getsockname()[1]}', transport: udp}}]\n",
                    "f").decision_logs
        [r] = round_(cfg).values()
        assert r["sent"] == 3
        got = [sock.recv(65535).decode() for _ in range(3)]
        assert [json.loads(RFC5424.match(m).group(6))["id"] for m in got] == [1, 2, 3]  # type: ignore[union-attr]
    finally:
        sock.close()


def test_cli_logs_export_after_real_evaluations(machine: Machine, receiver: OTLPReceiver,
                                                syslog: SyslogListener) -> None:
    """`cupcake eval` records (audit: on), `cupcake logs export` ships them; a collector that is down
    makes it exit 1 and keeps the records for the next run."""
    from cupcake_py.harness.examples import cupcake_command, run_eval
    from tests.fleet.helpers import bash

    (machine.project / ".cupcake/rulebook.yml").write_text("audit: on\n")
    for cmd in ("ls", f"echo token={SECRET}", "git status"):
        run_eval(bash(machine.project, cmd), machine.project, [], machine.env)
    machine.fleet_yml(f"decision_logs:\n  otlp: {{endpoint: '{receiver.endpoint}', timeout_seconds: 1}}\n"
                      f"  syslog: [{{address: '{syslog.address}', format: cef}}]\n")
    receiver.down = True
    p = subprocess.run([*cupcake_command(), "logs", "export"], capture_output=True, env=machine.env, timeout=120)
    assert p.returncode == 1 and len(syslog.messages) == 3
    receiver.down = False
    p = subprocess.run([*cupcake_command(), "logs", "export"], capture_output=True, env=machine.env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert [a["cupcake.id"] for a, _ in receiver.records] == [1, 2, 3]
    assert all(SECRET not in body for _, body in receiver.records) and all(SECRET not in m for m in syslog.messages)
    status = subprocess.run([*cupcake_command(), "status", "--json"], capture_output=True, env=machine.env,
                            cwd=machine.project, timeout=120)
    sinks = json.loads(status.stdout)["decision_logs"]["sinks"]
    assert all(s["backlog"] == 0 and s["exported"] == 3 for s in sinks.values()), sinks
