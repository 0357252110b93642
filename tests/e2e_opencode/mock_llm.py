"""A scripted OpenAI-compatible chat-completions server (stdlib only) for driving a real OpenCode headlessly.

Every reply is decided statelessly from the request, and every request body is appended to a JSONL log so a
test can see exactly what the model received (tool results, block messages, system prompt):

- no ``tools`` in the body (OpenCode's title generator) → a short text;
- otherwise the last user message holding step markers is the script. Steps are separated by ``;;``:
  ``CMD: <cmd>`` → bash, ``CMDIN: <dir> :: <cmd>`` → bash with ``workdir`` <dir>,
  ``TASK: <cmd>`` → task (a subagent whose prompt is ``CMD: <cmd>``),
  ``READ: <path>`` → read, ``EDIT: <path>`` → edit of ``<path>`` (``original`` → ``tampered``),
  ``WRITE: <path>`` → write of ``<path>`` (content ``written``).
  The number of tool results after that message says which step comes next; when all steps are done the
  reply is the text ``MOCK DONE: <content of the last tool result>``. No markers → a short text.

Run: ``python mock_llm.py --log requests.jsonl --port-file port`` (binds 127.0.0.1 on a free port).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MODEL = "mock-model"
STEP = re.compile(r"\b(CMD|CMDIN|TASK|READ|EDIT|WRITE):\s*(.+?)\s*(?=;;|\"|\n|$)")
_ids = itertools.count(1)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _tool_call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_mock_{next(_ids)}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def _step_call(kind: str, arg: str) -> dict[str, Any]:
    if kind == "CMD":
        return _tool_call("bash", {"command": arg})
    if kind == "CMDIN":
        workdir, _, command = arg.partition(" :: ")
        return _tool_call("bash", {"command": command, "workdir": workdir})
    if kind == "TASK":
        return _tool_call(
            "task", {"description": "run a command", "prompt": f"CMD: {arg}", "subagent_type": "general"}
        )
    if kind == "READ":
        return _tool_call("read", {"filePath": arg})
    if kind == "WRITE":
        return _tool_call("write", {"filePath": arg, "content": "written\n"})
    return _tool_call("edit", {"filePath": arg, "oldString": "original", "newString": "tampered"})


def decide(body: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """(text, tool_call): exactly one of the two is set."""
    messages: list[dict[str, Any]] = body.get("messages") or []
    if not body.get("tools"):
        return "Mock session title", None
    script_at = next(
        (
            i
            for i in range(len(messages) - 1, -1, -1)
            if messages[i].get("role") == "user" and STEP.search(_text_of(messages[i].get("content")))
        ),
        None,
    )
    if script_at is None:
        return "MOCK: nothing to do", None
    steps = STEP.findall(_text_of(messages[script_at].get("content")))
    results = [m for m in messages[script_at + 1 :] if m.get("role") == "tool"]
    if len(results) < len(steps):
        return None, _step_call(*steps[len(results)])
    last = _text_of(results[-1].get("content")) if results else ""
    return f"MOCK DONE: {last}", None


def _chunk(delta: dict[str, Any], finish: str | None, usage: bool) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage:
        chunk["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return chunk


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: MockServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            data = {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "mock"}]}
            self._send(200, json.dumps(data).encode())
        else:
            self._send(404, b'{"error":"not found"}')

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error":"not found"}')
            return
        body = json.loads(raw or b"{}")
        self.server.record(body)
        text, call = decide(body)
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if call is not None:
                message["tool_calls"] = [call]
            reply = {
                "id": "chatcmpl-mock",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": MODEL,
                "choices": [
                    {"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
            self._send(200, json.dumps(reply).encode())
            return
        if call is not None:
            first = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **call}]}
            chunks = [_chunk(first, None, False), _chunk({}, "tool_calls", True)]
        else:
            chunks = [_chunk({"role": "assistant", "content": text}, None, False), _chunk({}, "stop", True)]
        payload = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload.encode())
        self.wfile.flush()
        self.close_connection = True


class MockServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, log: Path) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self._log = log
        self._lock = threading.Lock()

    def record(self, body: dict[str, Any]) -> None:
        with self._lock, self._log.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(body) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--port-file", type=Path, required=True)
    ns = ap.parse_args()
    server = MockServer(ns.port, ns.log)
    ns.port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
