"""A scripted OpenAI Chat Completions API (stdlib only) on 127.0.0.1 for driving the real GitHub Copilot CLI,
Factory Droid and Cline headlessly (all three speak `POST /v1/chat/completions`, `stream: true`).

Every reply is decided from the request alone and every request body is appended to a JSONL log, so a test
sees exactly what the model received. The script is the first user message holding `STEPS:`; steps are
separated by `;;`: `CMD: <command>` (the agent's shell tool), `EDIT: <path>` (its edit tool, `original` ->
`tampered`), `TASK: <prompt>` (its subagent tool; the subagent's own first message is `<prompt>`, which may
hold a `SUBSTEPS:` script run the same way). Which agent asks is read from the tools it offers (`bash` =
Copilot, `Execute` = Droid, `run_commands` = Cline). The number of `role: tool` messages after the script
says which step comes next; when all are done (or there is no script) the reply is the text `MOCK DONE`.

Run (from the repository root): `python -m tests.e2e_chat.mock_openai --log requests.jsonl --port-file port`
(the server: tests/e2e_support/mock_http.py).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from tests.e2e_support.chat_completions import chat_route, models
from tests.e2e_support.mock_http import serve, text_of

STEP = re.compile(r"\b(CMD|EDIT|TASK):\s*(.+?)\s*(?=;;|$)", re.S)
_ids = itertools.count(1)


def tool_names(body: dict[str, Any]) -> set[str]:
    return {str((t.get("function") or {}).get("name")) for t in body.get("tools") or [] if isinstance(t, dict)}


def agent_of(body: dict[str, Any]) -> str:
    names = tool_names(body)
    for tool, agent in (("run_commands", "cline"), ("Execute", "factory"), ("bash", "copilot")):
        if tool in names:
            return agent
    return "unknown"


def step_call(agent: str, kind: str, arg: str) -> tuple[str, dict[str, Any]]:
    if kind == "CMD":
        if agent == "cline":
            return "run_commands", {"commands": [arg]}
        if agent == "factory":
            return "Execute", {"command": arg, "summary": "scripted step", "riskLevel": "low",
                               "riskLevelReason": "scripted test step"}
        return "bash", {"command": arg, "description": "scripted step"}
    if kind == "EDIT":
        if agent == "cline":
            return "editor", {"path": arg, "old_text": "original", "new_text": "tampered"}
        if agent == "factory":
            return "Edit", {"file_path": arg, "old_str": "original", "new_str": "tampered"}
        return "edit", {"path": arg, "old_str": "original", "new_str": "tampered"}
    # TASK: the subagent's prompt; its own script is SUBSTEPS: (renamed so the parent does not run it)
    if agent == "cline":
        return "spawn_agent", {"systemPrompt": "You are a helper.", "task": arg}
    if agent == "factory":
        return "Task", {"subagent_type": "worker", "description": "scripted subtask", "prompt": arg}
    return "task", {"name": "helper", "agent_type": "general-purpose", "description": "scripted subtask",
                    "prompt": arg}


def find_script(messages: list[dict[str, Any]]) -> tuple[int, str] | None:
    """(index, script) of the first user message holding `SUBSTEPS:` (a subagent's), else `STEPS:`."""
    for marker in ("SUBSTEPS:", "STEPS:"):
        for i, m in enumerate(messages):
            text = text_of(m.get("content"))
            if m.get("role") == "user" and marker in text:
                return i, text.split(marker, 1)[1]
    return None


def next_reply(body: dict[str, Any]) -> tuple[str, Any]:
    """("tool", (name, args)) or ("text", str)."""
    messages = body.get("messages") or []
    if not body.get("tools"):
        return "text", "ok"
    found = find_script(messages)
    if found is None:
        return "text", "MOCK DONE"
    script_at, script = found
    steps = STEP.findall(script)
    done = sum(1 for m in messages[script_at:] if m.get("role") == "tool")
    if done >= len(steps):
        return "text", "MOCK DONE"
    kind, arg = steps[done]
    return "tool", step_call(agent_of(body), kind, arg.replace("SUBSTEPS-", "SUBSTEPS:"))


if __name__ == "__main__":
    serve(lambda _args: chat_route(next_reply), get=models)
