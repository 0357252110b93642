"""A scripted OpenAI-compatible chat-completions model for driving a real OpenCode headlessly (the server:
tests/e2e_support/mock_http.py, the reply bodies: tests/e2e_support/chat_completions.py).

Every reply is decided statelessly from the request, and every request is appended to a JSONL log
(`{"path", "body"}`) so a test can see exactly what the model received (tool results, block messages,
system prompt):

- no ``tools`` in the body (OpenCode's title generator) → a short text;
- otherwise the last user message holding step markers is the script. Steps are separated by ``;;``:
  ``CMD: <cmd>`` → bash, ``CMDIN: <dir> :: <cmd>`` → bash with ``workdir`` <dir>,
  ``TASK: <cmd>`` → task (a subagent whose prompt is ``CMD: <cmd>``),
  ``READ: <path>`` → read, ``EDIT: <path>`` → edit of ``<path>`` (``original`` → ``tampered``),
  ``WRITE: <path>`` → write of ``<path>`` (content ``written``).
  The number of tool results after that message says which step comes next; when all steps are done the
  reply is the text ``MOCK DONE: <content of the last tool result>``. No markers → a short text.

Run (from the repository root): ``python -m tests.e2e_opencode.mock_llm --log requests.jsonl --port-file port``
(binds 127.0.0.1 on a free port).
"""

from __future__ import annotations

import re
from typing import Any

from tests.e2e_support.chat_completions import chat_route, models
from tests.e2e_support.mock_http import serve, text_of

STEP = re.compile(r"\b(CMD|CMDIN|TASK|READ|EDIT|WRITE):\s*(.+?)\s*(?=;;|\"|\n|$)")


def step_call(kind: str, arg: str) -> tuple[str, dict[str, Any]]:
    if kind == "CMD":
        return "bash", {"command": arg}
    if kind == "CMDIN":
        workdir, _, command = arg.partition(" :: ")
        return "bash", {"command": command, "workdir": workdir}
    if kind == "TASK":
        return "task", {"description": "run a command", "prompt": f"CMD: {arg}", "subagent_type": "general"}
    if kind == "READ":
        return "read", {"filePath": arg}
    if kind == "WRITE":
        return "write", {"filePath": arg, "content": "written\n"}
    return "edit", {"filePath": arg, "oldString": "original", "newString": "tampered"}


def next_reply(body: dict[str, Any]) -> tuple[str, Any]:
    """("tool", (name, args)) or ("text", str)."""
    messages: list[dict[str, Any]] = body.get("messages") or []
    if not body.get("tools"):
        return "text", "Mock session title"
    script_at = next((i for i in range(len(messages) - 1, -1, -1)
                      if messages[i].get("role") == "user" and STEP.search(text_of(messages[i].get("content")))), None)
    if script_at is None:
        return "text", "MOCK: nothing to do"
    steps = STEP.findall(text_of(messages[script_at].get("content")))
    results = [m for m in messages[script_at + 1:] if m.get("role") == "tool"]
    if len(results) < len(steps):
        return "tool", step_call(*steps[len(results)])
    last = text_of(results[-1].get("content")) if results else ""
    return "text", f"MOCK DONE: {last}"


if __name__ == "__main__":
    serve(lambda _args: chat_route(next_reply), get=models)
