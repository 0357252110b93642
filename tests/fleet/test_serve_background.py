"""`cupcake serve` with a fleet.yml: it polls the bundle source in the background (a new revision
is enforced without a restart) and exports the decision logs of its own evaluations to the OTLP
receiver, while requests are answered from the last activated bundle."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from pathlib import Path

from cupcake_py.harness.examples import cupcake_command
from tests.fleet.conftest import Machine
from tests.fleet.helpers import ORG_DENY_CURL, bash, rsa_pair
from tests.fleet.servers import BundleServer, OTLPReceiver
from tests.fleet.test_org_tier import ORG_DENY_WGET, make_bundle


def wait_for(cond: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_serve_refreshes_and_exports_in_the_background(machine: Machine, tmp_path: Path) -> None:
    priv, pub = rsa_pair(tmp_path)
    server, receiver = BundleServer(), OTLPReceiver()
    try:
        t0 = int(time.time()) - 100
        server.files["/b.tar.gz"] = make_bundle(machine.root, "1", {"curl": ORG_DENY_CURL}, priv.read_text(), t0)
        machine.fleet_yml(
            f"bundles:\n  acme:\n    url: {server.url}/b.tar.gz\n    signing: {{keyid: ci}}\n"
            "    polling: {min_delay_seconds: 0.2, max_delay_seconds: 0.3}\n"
            f"keys:\n  ci: {{key: {pub}}}\n"
            f"decision_logs:\n  otlp: {{endpoint: '{receiver.endpoint}', timeout_seconds: 2}}\n"
            "  min_delay_seconds: 0.2\n")
        (machine.project / ".cupcake/rulebook.yml").write_text("audit: on\n")
        proc = subprocess.Popen([*cupcake_command(), "serve", "--stdio"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=machine.env, cwd=machine.project)
        assert proc.stdin is not None and proc.stdout is not None
        n = 0

        def ask(command: str) -> dict[str, object]:
            nonlocal n
            n += 1
            event = json.loads(bash(machine.project, command))
            proc.stdin.write(json.dumps({"id": n, "harness": "opencode", "event": event}).encode() + b"\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
            return json.loads(proc.stdout.readline())["response"]  # type: ignore[union-attr, no-any-return]

        try:
            wait_for(lambda: any(s == 200 for _, _, s in server.requests))
            wait_for(lambda: ask("curl x").get("rule_ids") == ["ORG-CURL"])  # before: fail-closed denies
            assert ask("wget x") == {"decision": "allow"}
            wait_for(lambda: any(s == 304 for _, _, s in server.requests))  # the polls in between use the ETag
            server.files["/b.tar.gz"] = make_bundle(machine.root, "2", {"curl": ORG_DENY_CURL, "wget": ORG_DENY_WGET},
                                                    priv.read_text(), t0 + 10)
            wait_for(lambda: ask("wget y").get("rule_ids") == ["ORG-WGET"])
            db = Path(machine.env["XDG_STATE_HOME"]) / "cupcake-py/governance.sqlite3"

            def audited() -> int:
                with sqlite3.connect(db) as c:
                    return int(c.execute("SELECT COUNT(*) FROM audit").fetchone()[0])

            # every audit record of the evaluations that ran (the fail-closed answers before the first
            # activation never reached a bundle, so they have none) reaches the collector
            assert audited() >= 3
            wait_for(lambda: len(receiver.records) == audited())
            ids = [a["cupcake.id"] for a, _ in receiver.records]
            assert ids == sorted(ids)
        finally:
            proc.stdin.close()
            proc.wait(30)
    finally:
        server.close()
        receiver.close()
