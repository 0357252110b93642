"""Issue 29: any JSON number, anywhere in an event, reaches the policy, the answer and the audit
record exactly (a fraction or exponent is a Decimal with its own text), through the real
`cupcake eval` (both harnesses) and `cupcake serve` processes and the audit writer.

Before the fix, `{"timeout": 1.5}` or an MCP `temperature: 0.7` was denied with "internal error:
TypeError: Circular reference detected" (jsonio's shared C encoder kept the markers of an
encoding a Decimal interrupted), and the audit write failed the same way.

The policy echoes `input.tool_input.x` back as `json.marshal` text in its reason, so the test
compares the value the agent sent with the value the policy saw."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.core import jsonio
from cupcake_py.harness.examples import cupcake_command

ECHO = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
package cupcake.policies.{h}.echo

import rego.v1

deny contains {{"rule_id": "ECHO", "reason": json.marshal(input.tool_input.x), "severity": "LOW"}} if {{
	input.tool_input.x != null
}}

deny contains {{"rule_id": "HOT", "reason": "too hot", "severity": "LOW"}} if input.tool_input.temperature > 0.75
"""

HARNESSES = ("opencode", "claude")


class World:
    """A project whose policies echo `x` (both harnesses), every evaluation audited (`required`)."""

    def __init__(self, root: Path) -> None:
        self.project = root / "p"
        for h in HARNESSES:
            d = self.project / ".cupcake" / "policies" / h
            d.mkdir(parents=True)
            (d / "echo.rego").write_text(ECHO.format(h=h))
        (self.project / ".cupcake" / "rulebook.yml").write_text("audit: {mode: required, write_budget_ms: 5000}\n")
        self.env = {**os.environ, "XDG_CACHE_HOME": str(root / "cache"), "XDG_CONFIG_HOME": str(root / "cfg"),
                    "XDG_STATE_HOME": str(root / "state"), "HOME": str(root)}
        self.db = root / "state" / "cupcake-py" / "governance.sqlite3"

    def event(self, harness: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        base = {"hook_event_name": "PreToolUse", "session_id": "num", "cwd": str(self.project)}
        if harness == "opencode":
            return {**base, "tool": tool, "args": args}
        return {**base, "tool_name": {"bash": "Bash"}.get(tool, f"mcp__{tool.replace('_', '__', 1)}"),
                "tool_input": args}

    def eval(self, harness: str, raw: bytes) -> tuple[Any, int, str]:
        p = subprocess.run([*cupcake_command(), "eval", "--harness", harness, "--timeout", "60"], input=raw,
                           capture_output=True, cwd=self.project, env=self.env, timeout=180)
        return json.loads(p.stdout), p.returncode, p.stderr.decode()

    def exported_inputs(self) -> list[Any]:
        p = subprocess.run([*cupcake_command(), "audit", "export"], capture_output=True, cwd=self.project,
                           env=self.env, timeout=180, check=True)
        return [jsonio.loads(line)["input"] for line in p.stdout.splitlines()]


def decision(harness: str, response: dict[str, Any]) -> tuple[str, str]:
    if harness == "opencode":
        return response["decision"], response.get("reason", "")
    out = response.get("hookSpecificOutput", {})  # Claude Code's allow: {}
    return out.get("permissionDecision", "allow"), out.get("permissionDecisionReason", "")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("numbers"))


def raw(event: dict[str, Any]) -> bytes:
    return jsonio.dumps(event)


@pytest.mark.parametrize("harness", HARNESSES)
def test_fractional_bash_timeout_is_allowed_and_audited(world: World, harness: str) -> None:
    resp, code, err = world.eval(harness, raw(world.event(harness, "bash", {"command": "ls", "timeout": Decimal("1.5")})))
    assert code == 0, (resp, err)
    assert decision(harness, resp)[0] == "allow", resp
    assert "internal error" not in err
    last = world.exported_inputs()[-1]
    assert last["args"]["timeout"] == Decimal("1.5") and str(last["args"]["timeout"]) == "1.5"


@pytest.mark.parametrize("harness", HARNESSES)
def test_mcp_temperature_reaches_the_policy_exactly(world: World, harness: str) -> None:
    for t, want in (("0.7", "allow"), ("0.75", "allow"), ("0.7500000000000000000001", "deny"), ("7.5e-1", "allow")):
        resp, code, err = world.eval(harness, raw(world.event(harness, "srv_sample", {"temperature": Decimal(t)})))
        assert code == 0, (resp, err)
        assert decision(harness, resp)[0] == want, (t, resp)
    assert world.exported_inputs()[-1]["args"]["temperature"] == Decimal("7.5e-1")


# --------------------------------------------------------------------------- arbitrary values

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_numbers = (st.integers() | st.integers(min_value=2 ** 63, max_value=2 ** 300).map(lambda i: -i if i % 2 else i)
            | st.decimals(allow_nan=False, allow_infinity=False, places=None)
            | st.floats(allow_nan=False, allow_infinity=False).map(lambda f: Decimal(repr(f))))
json_values = st.recursive(st.none() | st.booleans() | _numbers | _text,
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
                           max_leaves=12)


def echoed(harness: str, response: dict[str, Any]) -> Any:
    kind, reason = decision(harness, response)
    assert kind == "deny", response
    return jsonio.loads(reason)


def _rego_view(v: Any) -> Any:
    """What a Rego policy sees of a JSON value: numbers by value (1.0 == 1, 1E+2 == 100)."""
    if isinstance(v, dict):
        return {k: _rego_view(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_rego_view(x) for x in v]
    if isinstance(v, Decimal | int) and not isinstance(v, bool):
        return Decimal(v).normalize() if v else Decimal(0)
    return v


@pytest.mark.parametrize("harness", HARNESSES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values.filter(lambda v: v is not None))
def test_any_json_value_round_trips_through_eval(world: World, harness: str, value: Any) -> None:
    resp, code, err = world.eval(harness, raw(world.event(harness, "bash", {"command": "ls", "x": value})))
    assert code == 0, (resp, err)
    assert _rego_view(echoed(harness, resp)) == _rego_view(value)
    assert world.exported_inputs()[-1]["args"]["x"] == value  # the audit record keeps the text itself


class Serve:
    def __init__(self, world: World) -> None:
        self.proc = subprocess.Popen([*cupcake_command(), "serve", "--stdio", "--timeout", "60"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=world.project, env=world.env)
        self.n = 0

    def ask(self, harness: str, event: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.n += 1
        self.proc.stdin.write(jsonio.dumps({"id": self.n, "harness": harness, "event": event}) + b"\n")
        self.proc.stdin.flush()
        out = jsonio.loads(self.proc.stdout.readline())
        assert isinstance(out, dict) and out["id"] == self.n
        return out

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def server(world: World) -> Any:
    s = Serve(world)
    yield s
    assert s.close() == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values.filter(lambda v: v is not None), harness=st.sampled_from(HARNESSES))
def test_any_json_value_round_trips_through_serve(world: World, server: Serve, harness: str, value: Any) -> None:
    out = server.ask(harness, world.event(harness, "bash", {"command": "ls", "x": value, "timeout": Decimal("1.5")}))
    assert out["exit_code"] == 0, out
    assert _rego_view(echoed(harness, out["response"])) == _rego_view(value)


def test_serve_answers_fractional_numbers_on_every_request(world: World, server: Serve) -> None:
    """The same request many times in one process (the shared encoder failed from the second on)."""
    for i in range(40):
        harness = HARNESSES[i % 2]
        out = server.ask(harness, world.event(harness, "srv_sample", {"temperature": Decimal("0.7")}))
        assert (out["exit_code"], decision(harness, out["response"])[0]) == (0, "allow"), out


@settings(max_examples=80, deadline=None)
@given(value=json_values, harness=st.sampled_from(HARNESSES))
def test_the_audit_writer_keeps_any_value(tmp_path_factory: pytest.TempPathFactory, value: Any,
                                          harness: str) -> None:
    from cupcake_py.governance import chain
    from cupcake_py.governance.audit import evaluation_row, write_evaluation
    from cupcake_py.governance.models import AuditRecord
    from cupcake_py.governance.store import AUDIT_COLUMNS

    db = str(tmp_path_factory.mktemp("audit") / "g.sqlite3")
    settings_ = {"mode": "required", "retention_days": 30, "max_rows": 1000, "write_budget_ms": 5000,
                 "history_last_n": 10, "windows": [1], "timeout_rules": {}}
    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p", "tool_name": "mcp__s__t",
             "tool_input": {"x": value, "temperature": Decimal("0.7")}}
    for now in (1.0, 2.0):  # twice: the second write encodes the same objects again
        write_evaluation(settings_, evaluation_row(event, harness, "/p", "allow", [], None, None, {"t": 0.1}, "k", now),
                         now, db)
    conn = sqlite3.connect(db)
    rows = conn.execute(f"SELECT id, {', '.join(AUDIT_COLUMNS)}, prev_hash, hash FROM audit ORDER BY id").fetchall()
    assert len(rows) == 2
    for row in rows:
        record = jsonio.loads(AuditRecord.from_row(row).json_line())
        assert record["input"]["args"] == {"x": value, "temperature": Decimal("0.7")}
    assert not chain.verify(conn).problems
