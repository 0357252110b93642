#!/usr/bin/env python3
"""FAKE cupcake: a stand-in for the engine side (`cupcake eval --harness opencode`), used ONLY by the
real-OpenCode e2e to prove the plugin <-> OpenCode side while the real engine is being built.

It speaks the same contract as the engine (one JSON event on stdin, one JSON decision line on stdout) and
decides by a few fixed rules on the event; it knows nothing about Rego. Set CUPCAKE_E2E_BIN to a real
`cupcake` executable to run the same e2e against the engine (see README.md here).

Rules:
  PreToolUse  bash  `rm -rf`            → deny  [e2e.no_rm_rf]
              bash  `REWRITE_ME`        → allow, updated_args: command → `echo rewritten-by-cupcake`
              bash  `git push --force`  → ask   [e2e.force_push]
              bash  `CONTEXT_ME`        → allow, context ["E2E_CONTEXT_MARKER: ..."]
              bash  `SLOW_ME`           → never answers (the plugin's timeout must kill it)
              edit/write  a path with a `protected` component or named `.env` → deny [e2e.protected_paths]
  PostToolUse bash  output contains `LEAK_` → block [e2e.no_leaks]
  everything else → allow
Each event is appended to $FAKE_CUPCAKE_LOG (JSON lines) when set.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import PurePath
from typing import Any

VERSION = "cupcake 0.0.0-fake-e2e"


def decide(event: dict[str, Any]) -> dict[str, Any]:
    tool = event.get("tool")
    args = event.get("args") or {}
    if event.get("hook_event_name") == "PostToolUse":
        output = str((event.get("result") or {}).get("output", ""))
        if tool == "bash" and "LEAK_" in output:
            return {
                "decision": "block",
                "reason": "the output contains a leaked token",
                "rule_ids": ["e2e.no_leaks"],
            }
        return {"decision": "allow"}
    command = str(args.get("command", "")) if tool == "bash" else ""
    if "rm -rf" in command:
        return {
            "decision": "deny",
            "reason": "recursive forced deletion is not allowed",
            "rule_ids": ["e2e.no_rm_rf"],
        }
    if "REWRITE_ME" in command:
        return {"decision": "allow", "updated_args": {**args, "command": "echo rewritten-by-cupcake"}}
    if "git push --force" in command:
        return {
            "decision": "ask",
            "reason": "force-pushing rewrites shared history",
            "rule_ids": ["e2e.force_push"],
        }
    if "CONTEXT_ME" in command:
        return {"decision": "allow", "context": ["E2E_CONTEXT_MARKER: run the test suite before committing"]}
    if "SLOW_ME" in command:
        time.sleep(600)
    if tool in ("edit", "write"):
        path = PurePath(str(args.get("filePath", "")))
        if "protected" in path.parts or path.name == ".env":
            return {
                "decision": "deny",
                "reason": f"{path} is a protected path",
                "rule_ids": ["e2e.protected_paths"],
            }
    return {"decision": "allow"}


def main(argv: list[str]) -> int:
    if argv == ["--version"]:
        print(VERSION)
        return 0
    if argv[:3] != ["eval", "--harness", "opencode"]:
        print(f"fake cupcake: unsupported arguments {argv}", file=sys.stderr)
        return 2
    event = json.loads(sys.stdin.read())
    if log := os.environ.get("FAKE_CUPCAKE_LOG"):
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"argv": argv, "event": event, "pid": os.getpid()}) + "\n")
    print(json.dumps(decide(event)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
