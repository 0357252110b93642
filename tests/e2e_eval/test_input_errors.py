"""Issue 29: bad input is an input error, never an internal error.

A table built from what each harness reads (its event schema's typed fields, every tool's
argument types in tool_map.json, the path arguments and working directory the engine resolves
on disk) gives every field a value of the wrong type, and every path a NUL character; lone
surrogates and invalid UTF-8 sit in string fields. Each case goes through the real
`cupcake eval --harness <h>` process and must answer with the harness's fail-closed form (its
`fail` answer: for a PreToolUse, opencode's deny with exit 2, Claude Code's deny JSON + reason on
stderr + exit 2, since Claude Code runs the tool on any other exit) and a reason that names the
input problem ("invalid <agent> event: ..." / "not valid JSON"), never "internal error".

Beside the table, a hypothesis property puts arbitrary JSON values (NUL characters included) into
every field in process: `validate` either accepts the event or raises EventError, and an accepted
event is preprocessed without an exception (docs/architecture.md section 7).
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.core import jsonio
from cupcake_py.core.errors import EventError
from cupcake_py.harness import get
from cupcake_py.harness.data import HarnessData
from cupcake_py.harness.examples import cupcake_command

WRONG = {"string": 7, "number": "7", "integer": "7", "boolean": "yes", "array": {"a": 1}, "object": ["x"]}
AGENT = {"opencode": "OpenCode", "claude": "Claude Code"}


def _base(harness: str, cwd: str) -> dict[str, Any]:
    if harness == "opencode":
        return {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": cwd, "tool": "bash",
                "args": {"command": "ls"}}
    return {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": cwd, "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "transcript_path": "/tmp/t.jsonl"}


def _good(kind: str) -> Any:
    return {"string": "x", "number": 1, "integer": 1, "boolean": True, "array": [], "object": {}}[kind]


def cases(harness: str, cwd: str) -> dict[str, bytes]:
    """name -> raw event: one wrong-typed value per field the harness reads, NUL in each path."""
    data = HarnessData(harness)
    schema, tools = data.event_schema(), data.tool_map()
    tool_key, args_key = ("tool", "args") if harness == "opencode" else ("tool_name", "tool_input")
    base = _base(harness, cwd)
    out: dict[str, bytes] = {}

    def add(name: str, event: dict[str, Any]) -> None:
        out[name] = json.dumps(event).encode()

    for field, spec in schema["properties"].items():
        kind = spec.get("type") or ("string" if "enum" in spec else None)
        if kind is not None:
            add(f"{field}:{kind}", {**base, field: WRONG[kind]})
    paths = list(tools["path_args"]) + (["workdir"] if harness == "opencode" else [])
    for tool, spec in tools["tool_args"].items():
        args = {k: _good(t) for k, t in spec["required"].items()}
        for key, kind in {**spec["required"], **spec["optional"]}.items():
            add(f"{tool}.{key}:{kind}", {**base, tool_key: tool, args_key: {**args, key: WRONG[kind]}})
        key = next((p for p in paths if p in spec["required"] or p in spec["optional"]), paths[0])
        add(f"{tool}.{key}:nul", {**base, tool_key: tool, args_key: {**args, key: "/tmp/a\0b"}})
    mcp = "srv_tool" if harness == "opencode" else "mcp__srv__tool"
    for key in paths:
        add(f"mcp.{key}:nul", {**base, tool_key: mcp, args_key: {key: "\0"}})
    add("cwd:nul", {**base, "cwd": cwd + "\0"})
    text = json.dumps(base)
    out["session_id:lone-surrogate"] = text.replace('"session_id": "s"', '"session_id": "a\\udc80"').encode()
    out["command:lone-surrogate"] = text.replace('"command": "ls"', '"command": "ls \\ud800"').encode()
    out["cwd:invalid-utf8"] = text.replace(f'"cwd": "{cwd}"', f'"cwd": "{cwd}\\u0000"').encode().replace(
        b"\\u0000", b"\xff")
    return out


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CACHE_HOME": str(root / "cache"), "XDG_CONFIG_HOME": str(root / "cfg"),
            "XDG_STATE_HOME": str(root / "state")}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("input-errors")
    p = root / "p"
    p.mkdir()
    for h in AGENT:
        subprocess.run([*cupcake_command(), "init", "--harness", h], cwd=p, env=_env(root), capture_output=True,
                       check=True)
    return p


def _run(project: Path, harness: str, raw: bytes) -> tuple[bytes, int, str]:
    p = subprocess.run([*cupcake_command(), "eval", "--harness", harness], input=raw, capture_output=True,
                       cwd=project, env=_env(project.parent), timeout=180)
    return p.stdout, p.returncode, p.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("harness", sorted(AGENT))
def test_every_field_a_harness_reads_fails_as_an_input_error(project: Path, harness: str) -> None:
    table = cases(harness, str(project))
    assert len(table) > 40
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(table, pool.map(lambda raw: _run(project, harness, raw), table.values()), strict=True))
    wrong = []
    for name, (stdout, code, stderr) in results.items():
        response = json.loads(stdout)
        reason = response.get("reason") if harness == "opencode" else stderr.strip()
        try:
            decoded = jsonio.loads(table[name])
        except jsonio.JSONError:
            decoded = None
        fail_closed = get(harness).fail(reason, decoded)
        ok = (code == fail_closed.exit == 2 and response == fail_closed.stdout
              and "internal error" not in stdout.decode() + stderr and "Traceback" not in stderr
              and any(n in reason for n in (f"invalid {AGENT[harness]} event", "not valid JSON")))
        if harness == "claude" and isinstance(decoded, dict) and decoded.get("hook_event_name") == "PreToolUse":
            ok = ok and response["hookSpecificOutput"]["permissionDecision"] == "deny"
        if not ok:
            wrong.append((name, code, stdout[:300], stderr[:300]))
    assert not wrong, wrong


# --------------------------------------------------------------------------- in process, any value

_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=8) | st.sampled_from(["\0", "/tmp/\0", "", "/"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)


def _events(harness: str) -> st.SearchStrategy[dict[str, Any]]:
    data = HarnessData(harness)
    tools = sorted(data.tool_map()["tool_args"]) + ["srv_tool", "mcp__srv__tool"]
    tool_key, args_key = ("tool", "args") if harness == "opencode" else ("tool_name", "tool_input")
    arg_names = sorted({k for spec in data.tool_map()["tool_args"].values() for g in ("required", "optional")
                        for k in spec[g]} | set(data.tool_map()["path_args"]) | {"workdir", "patchText"})
    fields = sorted(data.event_schema()["properties"])

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        event = _base(harness, "/tmp")
        event[tool_key] = draw(st.sampled_from(tools))
        event[args_key] = draw(st.dictionaries(st.sampled_from(arg_names), _values, max_size=4))
        for field in draw(st.lists(st.sampled_from(fields), max_size=3)):
            event[field] = draw(_values)
        return event

    return build()


@pytest.mark.parametrize("harness", sorted(AGENT))
def test_validate_then_preprocess_never_raises_anything_else(harness: str) -> None:
    h = get(harness)

    @settings(max_examples=300, deadline=None)
    @given(event=_events(harness))
    def check(event: dict[str, Any]) -> None:
        try:
            valid = h.validate(event)
        except EventError:
            return
        h.preprocess(valid, script_inspection=True)
        h.tool_name(valid)
        h.event_name(valid)

    check()
