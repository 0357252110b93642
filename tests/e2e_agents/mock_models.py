"""Scripted model APIs (stdlib only) on 127.0.0.1 for driving the real Codex CLI, Gemini CLI and Qwen Code
headlessly (shared/reference/codex.md, gemini-cli.md, qwen-code.md say what each must accept).

- `--api responses` (Codex 0.171.0): `POST /v1/responses`, always streamed SSE (response.created ->
  output_item.added/done -> response.completed). Shell calls are `function_call exec_command {"cmd": ...}`,
  patches `custom_tool_call apply_patch` (freeform input), subagents `function_call spawn_agent` in the
  `multi_agent_v1` namespace.
- `--api gemini` (Gemini CLI 0.61.0): `POST /v1beta/models/<m>:streamGenerateContent?alt=sse` (one `data:`
  line), `:generateContent` (plain JSON). Calls are `functionCall {name, args}`.
- `--api chat` (Qwen Code 0.24.4, OpenAI-compatible): `POST /v1/chat/completions`, streamed chunks with
  `tool_calls` deltas.

The script is the user text holding `STEPS:`; steps are separated by `;;`: `CMD: <command>` (the shell tool),
`EDIT: <path>` (an edit `original` -> `tampered`; Codex: an apply_patch Update File), `WRITE: <path>`
(Gemini, Qwen: write_file with `written by the agent`), `AGENT: <prompt>`
(the subagent tool; the subagent's own request carries the prompt, which may hold `SUBSTEPS:` run by the
subagent the same way, separated by `##`), `WAIT: agent` (Codex only: `wait_agent` on the last spawned agent, so
`codex exec` does not end before its subagent has worked). The number of tool results after the script says which step comes next; when all
are done, or there is no script, the reply is the text `MOCK DONE`. Every request body is appended to a
JSONL log so a test sees exactly what the model received.

Run (from the repository root): `python -m tests.e2e_agents.mock_models --api responses|gemini|chat --log
requests.jsonl --port-file port` (the server: tests/e2e_support/mock_http.py).
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from typing import Any

from tests.e2e_support.mock_http import Reply, Route, json_reply, serve, sse, text_of

STEP = re.compile(r"\b(CMD|EDIT|WRITE|AGENT|WAIT):\s*(.+?)\s*(?=;;|$)", re.S)
_ids = itertools.count(1)


PARENT = re.compile(r"(?<!SUB)STEPS:")


def script_of(texts: list[str]) -> tuple[int, list[tuple[str, str]]] | None:
    """(index of the user text holding the script, its steps): the parent's `STEPS:` first, else a
    subagent's `SUBSTEPS:` (whose steps are separated by `##`, so they ride inside one AGENT step)."""
    for i, text in enumerate(texts):
        m = PARENT.search(text)
        if m:
            return i, [(k, v.strip()) for k, v in STEP.findall(text[m.end():])]
    for i, text in enumerate(texts):
        if "SUBSTEPS:" in text:
            sub = text.split("SUBSTEPS:", 1)[1].replace("##", ";;")
            return i, [(k, v.strip()) for k, v in STEP.findall(sub)]
    return None


# -- the three wire formats: (texts of user turns in order, number of tool results after the script) -------


def _responses_view(body: dict[str, Any]) -> tuple[list[str], list[int]]:
    texts: list[str] = []
    results_after: list[int] = []
    for item in body.get("input") or []:
        if item.get("type") == "message" and item.get("role") == "user":
            texts.append(text_of(item.get("content"), " "))
            results_after.append(0)
        elif item.get("type") in ("function_call_output", "custom_tool_call_output") and results_after:
            results_after[-1] += 1
    return texts, results_after


def _gemini_view(body: dict[str, Any]) -> tuple[list[str], list[int]]:
    texts: list[str] = []
    results_after: list[int] = []
    for c in body.get("contents") or []:
        parts = c.get("parts") or []
        if c.get("role") == "user":
            if any("functionResponse" in p for p in parts):
                if results_after:
                    results_after[-1] += sum("functionResponse" in p for p in parts)
            else:
                texts.append(" ".join(str(p.get("text", "")) for p in parts))
                results_after.append(0)
    return texts, results_after


def _chat_view(body: dict[str, Any]) -> tuple[list[str], list[int]]:
    texts: list[str] = []
    results_after: list[int] = []
    for m in body.get("messages") or []:
        if m.get("role") == "user":
            texts.append(text_of(m.get("content"), " "))
            results_after.append(0)
        elif m.get("role") == "tool" and results_after:
            results_after[-1] += 1
    return texts, results_after


VIEWS = {"responses": _responses_view, "gemini": _gemini_view, "chat": _chat_view}


def next_step(api: str, body: dict[str, Any]) -> tuple[str, str] | None:
    """The step to answer with, None for the final text."""
    texts, results = VIEWS[api](body)
    found = script_of(texts)
    if found is None:
        return None
    i, steps = found
    done = sum(results[i:])
    return steps[done] if done < len(steps) else None


# -- replies ------------------------------------------------------------------------------------------------


def _patch(path: str) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n-original\n+tampered\n*** End Patch\n"


def _last_agent_id(body: dict[str, Any]) -> str:
    for item in reversed(body.get("input") or []):
        if item.get("type") == "function_call_output":
            try:
                return str(json.loads(item.get("output") or "")["agent_id"])
            except (ValueError, KeyError, TypeError):
                continue
    return "unknown"


def responses_reply(step: tuple[str, str] | None, body: dict[str, Any]) -> bytes:
    rid = f"resp_{next(_ids)}"
    if step is None:
        item: dict[str, Any] = {"type": "message", "id": f"msg_{next(_ids)}", "role": "assistant", "status": "completed",
                                "content": [{"type": "output_text", "text": "MOCK DONE", "annotations": []}]}
    elif step[0] == "CMD":
        item = {"type": "function_call", "id": f"fc_{next(_ids)}", "call_id": f"call_{next(_ids)}",
                "name": "exec_command", "arguments": json.dumps({"cmd": step[1]}), "status": "completed"}
    elif step[0] == "EDIT":
        item = {"type": "custom_tool_call", "id": f"ctc_{next(_ids)}", "call_id": f"call_{next(_ids)}",
                "name": "apply_patch", "input": _patch(step[1]), "status": "completed"}
    elif step[0] == "WAIT":
        item = {"type": "function_call", "id": f"fc_{next(_ids)}", "call_id": f"call_{next(_ids)}",
                "name": "wait_agent", "namespace": "multi_agent_v1",
                "arguments": json.dumps({"targets": [_last_agent_id(body)], "timeout_ms": 120000}), "status": "completed"}
    else:
        item = {"type": "function_call", "id": f"fc_{next(_ids)}", "call_id": f"call_{next(_ids)}",
                "name": "spawn_agent", "namespace": "multi_agent_v1", "arguments": json.dumps({"message": step[1]}),
                "status": "completed"}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    out = [sse({"type": "response.created", "response": {"id": rid}}, "response.created"),
           sse({"type": "response.output_item.added", "output_index": 0, "item": item}, "response.output_item.added"),
           sse({"type": "response.output_item.done", "output_index": 0, "item": item}, "response.output_item.done"),
           sse({"type": "response.completed", "response": {"id": rid, "usage": usage, "output": [item]}},
                "response.completed")]
    return b"".join(out)


def gemini_part(step: tuple[str, str] | None) -> dict[str, Any]:
    if step is None:
        return {"text": "MOCK DONE"}
    if step[0] == "CMD":
        return {"functionCall": {"name": "run_shell_command", "args": {"command": step[1], "description": "step"}}}
    if step[0] == "WRITE":
        return {"functionCall": {"name": "write_file", "args": {"file_path": step[1], "content": "written by the agent\n"}}}
    if step[0] == "EDIT":
        return {"functionCall": {"name": "replace", "args": {"file_path": step[1], "instruction": "change it",
                                                             "old_string": "original", "new_string": "tampered"}}}
    return {"functionCall": {"name": "invoke_agent", "args": {"agent_name": "generalist", "prompt": step[1]}}}


def _schema_answer(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON object satisfying a side call's response schema (Gemini's model router asks for a complexity
    score; a reply it cannot parse makes it retry with backoff for minutes)."""
    fill = {"STRING": "simple", "INTEGER": 10, "NUMBER": 10, "BOOLEAN": False}
    props = schema.get("properties") or {}
    return {k: fill.get(str(v.get("type", "STRING")).upper(), "simple") for k, v in props.items()}


def gemini_reply(step: tuple[str, str] | None, body: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = ((body or {}).get("generationConfig") or {}).get("responseJsonSchema")
    part = {"text": json.dumps(_schema_answer(schema))} if isinstance(schema, dict) else gemini_part(step)
    return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "gemini-2.5-flash"}


def chat_call(step: tuple[str, str]) -> tuple[str, dict[str, Any]]:
    if step[0] == "CMD":
        return "run_shell_command", {"command": step[1], "description": "step"}
    if step[0] == "WRITE":
        return "write_file", {"file_path": step[1], "content": "written by the agent\n"}
    if step[0] == "EDIT":
        return "edit", {"file_path": step[1], "old_string": "original", "new_string": "tampered"}
    return "agent", {"description": "sub task", "prompt": step[1], "subagent_type": "general-purpose"}


def chat_reply(step: tuple[str, str] | None, model: str) -> bytes:
    cid = f"chatcmpl-{next(_ids)}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return sse({"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    if step is None:
        body = chunk({"role": "assistant", "content": "MOCK DONE"}) + chunk({}, "stop")
    else:
        name, args = chat_call(step)
        body = chunk({"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": f"call_{next(_ids)}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}]}) + chunk({}, "tool_calls")
    usage = sse({"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model, "choices": [],
                  "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
    return body + usage + b"data: [DONE]\n\n"


def make_route(api: str) -> Route:
    def route(path: str, body: dict[str, Any]) -> Reply:
        step = next_step(api, body)
        if api == "responses" and path.startswith("/v1/responses"):
            return 200, "text/event-stream", responses_reply(step, body)
        if api == "gemini" and ":streamGenerateContent" in path:
            return 200, "text/event-stream", sse(gemini_reply(step, body))
        if api == "gemini" and ":generateContent" in path:
            return json_reply(gemini_reply(step, body))
        if api == "chat" and path.startswith("/v1/chat/completions"):
            if body.get("stream"):
                return 200, "text/event-stream", chat_reply(step, str(body.get("model")))
            return json_reply({
                "id": "x", "object": "chat.completion", "created": 1, "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "MOCK DONE"},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        return 404, "application/json", b'{"error":{"message":"unknown endpoint"}}'

    return route


def _options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--api", choices=sorted(VIEWS), required=True)


if __name__ == "__main__":
    serve(lambda args: make_route(args.api), _options)
