"""A scripted Anthropic Messages API (stdlib only) on 127.0.0.1 for driving the real Claude Code headlessly.

What Claude Code 2.1.197 needs (shared/reference/claude-code.md): `HEAD /` (preflight) → 200;
`POST /v1/messages?beta=true` → streamed SSE for `stream: true`, a plain Message JSON otherwise (the
auto-mode classifier, side calls); `messages` may hold `role: "system"` entries (hook context).

Every reply is decided from the request alone and every request body is appended to a JSONL log, so a test
sees exactly what the model received. The script is the user text holding `STEPS:`; steps are separated
by `;;`: `CMD: <command>` → Bash, `EDIT: <path>` → Edit (`original` → `tampered`), `WRITE: <path>` → Write,
`READ: <path>` → Read. The number of tool results after the script says which step comes next; when all
are done (or there is no script, or the request has no tools) the reply is the text `MOCK DONE`.

Run (from the repository root): `python -m tests.e2e_claude.mock_api --log requests.jsonl --port-file port`
(the server: tests/e2e_support/mock_http.py).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from tests.e2e_support.mock_http import Reply, serve, sse, text_of

MODEL = "claude-mock"
STEP = re.compile(r"\b(CMD|EDIT|WRITE|READ):\s*(.+?)\s*(?=;;|$)")
_ids = itertools.count(1)


def tool_results(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        return []
    return [p for p in content if isinstance(p, dict) and p.get("type") == "tool_result"]


def _step_call(kind: str, arg: str) -> tuple[str, dict[str, Any]]:
    if kind == "CMD":
        return "Bash", {"command": arg, "description": "scripted step"}
    if kind == "EDIT":
        return "Edit", {"file_path": arg, "old_string": "original", "new_string": "tampered"}
    if kind == "WRITE":
        return "Write", {"file_path": arg, "content": "written by the agent\n"}
    return "Read", {"file_path": arg}


def next_reply(body: dict[str, Any]) -> tuple[str, Any]:
    """("tool", (name, input)) or ("text", str)."""
    messages = body.get("messages") or []
    if not body.get("tools"):
        return "text", "ok"
    script_at = None
    for i, m in enumerate(messages):
        if m.get("role") == "user" and "STEPS:" in text_of(m.get("content")):
            script_at = i
            break
    if script_at is None:
        return "text", "MOCK DONE"
    script = text_of(messages[script_at]["content"]).split("STEPS:", 1)[1]
    steps = STEP.findall(script)
    done = sum(len(tool_results(m.get("content"))) for m in messages[script_at:] if m.get("role") == "user")
    if done >= len(steps):
        return "text", "MOCK DONE"
    kind, arg = steps[done]
    return "tool", _step_call(kind, arg)


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return sse(data, event)


def stream_body(kind: str, payload: Any) -> bytes:
    msg_id = f"msg_mock_{next(_ids)}"
    out = [_sse("message_start", {"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": MODEL, "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    if kind == "tool":
        name, args = payload
        out.append(_sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": f"toolu_mock_{next(_ids)}", "name": name, "input": {}}}))
        out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": json.dumps(args)}}))
        stop = "tool_use"
    else:
        out.append(_sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
            "type": "text", "text": ""}}))
        out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
            "type": "text_delta", "text": payload}}))
        stop = "end_turn"
    out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    out.append(_sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 5}}))
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def plain_body(text: str) -> bytes:
    return json.dumps({"id": f"msg_mock_{next(_ids)}", "type": "message", "role": "assistant", "model": MODEL,
                       "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                       "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}).encode()


def route(path: str, body: dict[str, Any]) -> Reply:
    if not path.startswith("/v1/messages"):
        return 404, "application/json", b'{"type":"error","error":{"type":"not_found_error"}}'
    kind, payload = next_reply(body)
    if body.get("stream"):
        return 200, "text/event-stream", stream_body(kind, payload)
    return 200, "application/json", plain_body(payload if kind == "text" else "ok")


if __name__ == "__main__":
    serve(lambda _args: route, not_found=b'{"type":"error","error":{"type":"not_found_error","message":"no"}}',
          bad_json=b'{"type":"error","error":{"type":"invalid_request_error"}}')
