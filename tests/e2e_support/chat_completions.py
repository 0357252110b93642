"""OpenAI Chat Completions reply bodies for the scripted mock models (stdlib only): tests/e2e_chat/mock_openai.py
(Copilot CLI, Factory Droid, Cline) and tests/e2e_opencode/mock_llm.py (OpenCode).

In: the model name and one reply, `("text", str)` or `("tool", (name, arguments))`. Out: the bytes of the
streamed answer (`stream_body`: chat.completion.chunk events, usage on the last, then `data: [DONE]`) or of
the plain one (`plain_body`); tool call ids are `call_mock_<n>`, unique within the mock's process.
`chat_route(next_reply)`: the Route (mock_http.py) answering `POST .../chat/completions` with the reply
`next_reply(body)` decides; `models`: the GET route listing the one model `mock-model`.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from tests.e2e_support.mock_http import NOT_FOUND, Reply, Route, json_reply

_ids = itertools.count(1)


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None, usage: bool = False) -> bytes:
    data: dict[str, Any] = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": int(time.time()),
                            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        data["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return f"data: {json.dumps(data)}\n\n".encode()


def stream_body(model: str, kind: str, payload: Any) -> bytes:
    out = [_chunk(model, {"role": "assistant", "content": ""})]
    if kind == "tool":
        name, args = payload
        call = {"index": 0, "id": f"call_mock_{next(_ids)}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}
        out.append(_chunk(model, {"tool_calls": [call]}))
        out.append(_chunk(model, {}, "tool_calls", usage=True))
    else:
        out.append(_chunk(model, {"content": payload}))
        out.append(_chunk(model, {}, "stop", usage=True))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def plain_body(model: str, kind: str, payload: Any) -> bytes:
    message: dict[str, Any] = {"role": "assistant", "content": payload if kind == "text" else None}
    if kind == "tool":
        name, args = payload
        message["tool_calls"] = [{"id": f"call_mock_{next(_ids)}", "type": "function",
                                  "function": {"name": name, "arguments": json.dumps(args)}}]
    return json.dumps({"id": "chatcmpl-mock", "object": "chat.completion", "created": int(time.time()),
                       "model": model, "choices": [{"index": 0, "message": message,
                                                    "finish_reason": "tool_calls" if kind == "tool" else "stop"}],
                       "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode()


def chat_route(next_reply: Callable[[dict[str, Any]], tuple[str, Any]]) -> Route:
    def route(path: str, body: dict[str, Any]) -> Reply:
        if not path.rstrip("/").endswith("/chat/completions"):
            return 404, "application/json", NOT_FOUND
        kind, payload = next_reply(body)
        model = str(body.get("model") or "mock-model")
        if body.get("stream"):
            return 200, "text/event-stream", stream_body(model, kind, payload)
        return 200, "application/json", plain_body(model, kind, payload)

    return route


def models(path: str) -> Reply:
    if path.rstrip("/").endswith("/models"):
        return json_reply({"object": "list", "data": [{"id": "mock-model", "object": "model", "owned_by": "mock"}]})
    return 404, "application/json", NOT_FOUND
