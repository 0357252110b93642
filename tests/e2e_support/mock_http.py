"""The loopback HTTP server every scripted mock model of the real-agent e2e suites runs (stdlib only):
tests/e2e_claude/mock_api.py (Anthropic Messages), tests/e2e_agents/mock_models.py (OpenAI Responses, Gemini,
Chat Completions), tests/e2e_chat/mock_openai.py (Chat Completions).

In: a `Route(path, body) -> (status, content type, bytes)` deciding each POST from the request alone, an
optional `get(path)` for GETs, and the API's error bodies. Out: a ThreadingHTTPServer on 127.0.0.1, port 0
(the port is written to `--port-file`), that answers HEAD with 200, appends every POST body as one JSON
line `{"path", "body"}` to `--log` (so a test sees exactly what the model received) and answers a body
that is not JSON with 400. Run a mock as `python -m tests.<suite>.<mock> --log F --port-file P` from the
repository root (`start_model` in world.py does).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Reply = tuple[int, str, bytes]
Route = Callable[[str, dict[str, Any]], Reply]
NOT_FOUND = b'{"error":{"message":"not found"}}'
BAD_JSON = b'{"error":{"message":"bad json"}}'


def text_of(content: Any, sep: str = "\n") -> str:
    """The text of a message's content: a string, or the `text` of each part of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return sep.join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def sse(data: dict[str, Any], event: str | None = None) -> bytes:
    """One server-sent event (`event:` line only when named)."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def json_reply(value: Any) -> Reply:
    return 200, "application/json", json.dumps(value).encode()


def make_handler(log: Path, route: Route, get: Callable[[str], Reply] | None = None,
                 not_found: bytes = NOT_FOUND, bad_json: bytes = BAD_JSON) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

        def _send(self, reply: Reply) -> None:
            status, ctype, body = reply
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
            self._send((200, "text/plain", b""))

        def do_GET(self) -> None:  # noqa: N802
            self._send(get(self.path) if get is not None else (404, "application/json", not_found))

        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                self._send((400, "application/json", bad_json))
                return
            with log.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"path": self.path, "body": body}) + "\n")
            self._send(route(self.path, body))

    return Handler


def serve(route: Callable[[argparse.Namespace], Route], options: Callable[[argparse.ArgumentParser], None] | None = None,
          get: Callable[[str], Reply] | None = None, not_found: bytes = NOT_FOUND, bad_json: bytes = BAD_JSON) -> None:
    """The mock's main: `--log`, `--port-file` and the mock's own `options`; `route(args)` makes its Route."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", type=Path, required=True)
    ap.add_argument("--port-file", type=Path, required=True)
    if options is not None:
        options(ap)
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(args.log, route(args), get, not_found, bad_json))
    args.port_file.write_text(str(server.server_address[1]))
    server.serve_forever()
