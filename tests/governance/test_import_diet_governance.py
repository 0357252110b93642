"""The cold `cupcake eval` of a project that records and reads history stays lean: the SQLite
store comes in through `_sqlite3` (not the `sqlite3` package, whose dbapi2 layer imports datetime
and collections.abc), hashes through the builtin sha256 (not hashlib/OpenSSL), and nothing the
routing-miss guard forbids is imported beyond what a routed evaluation may. Functional (which
modules), not timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.engine.test_import_diet import NOT_IMPORTED, PROBE
from tests.engine.test_import_diet_routed import ALLOWED_WHEN_SHELL
from tests.governance.test_audit_eval import POLICY

GOVERNANCE_EXTRA = {
    "sqlite3": "the store uses the C module _sqlite3 directly",
    "sqlite3.dbapi2": "its adapters import datetime",
    "hashlib": "hashes use the builtin sha256",
    "datetime": "history formats times with time.strftime",
    "cupcake_py.governance.models": "pydantic models serve `cupcake audit` only",
    "cupcake_py.cli.audit": "the `cupcake audit` command line only",
    "pydantic": "never on the eval path",
}


def test_recording_evaluation_with_history_stays_lean(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".cupcake" / "policies" / "opencode").mkdir(parents=True)
    (project / ".cupcake" / "policies" / "opencode" / "no_rm.rego").write_text(POLICY)
    (project / ".cupcake" / "rulebook.yml").write_text("audit: required\nbuiltins:\n  loop_guard: {}\n"
                                                        "  escalation: {}\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_STATE_HOME": str(tmp_path / "state")}
    event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool": "bash",
                        "args": {"command": "rm -rf build"}})
    runs = []
    for _ in range(2):  # the first run builds the bundle; the second is the cold path
        proc = subprocess.run([sys.executable, "-c", PROBE, event], capture_output=True, text=True, cwd=project,
                              env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs.append((proc.stdout, json.loads(proc.stderr.splitlines()[-1])))
    stdout, report = runs[1]
    assert json.loads(stdout)["rule_ids"] == ["NO-RM"] and report["code"] == 0
    loaded = set(report["modules"])
    assert {"cupcake_py.governance.history", "cupcake_py.governance.audit", "_sqlite3"} <= loaded
    # a routed Bash event parses its command (ALLOWED_WHEN_SHELL); no shell signal runs here, so
    # `signal` (the shell-signal runner's subprocess) must stay out too
    allowed = ALLOWED_WHEN_SHELL - {"signal"}
    forbidden = {**{m: w for m, w in NOT_IMPORTED.items() if m not in allowed
                    and not m.startswith("cupcake_py.governance")}, **GOVERNANCE_EXTRA}
    offenders = {m: why for m, why in forbidden.items() if m in loaded}
    assert not offenders, offenders
