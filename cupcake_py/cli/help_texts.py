"""The help texts of `cupcake eval` and `cupcake serve`, without typer.

`cupcake eval --help` and `cupcake serve --help` are answered by the fast paths
(`cupcake_py.fast_eval`, `cupcake_py.serve`), which print these strings; the typer app
(`cli/eval_serve.py`) shows the same text in `cupcake --help`. Out: two str constants; nothing fails.
"""

from __future__ import annotations

from cupcake_py.engine.options import help_text

EVAL_HELP = f"""Evaluate one agent event against the project's policies.

Reads one agent event (JSON) on stdin, prints one JSON answer line on stdout in the format of the
harness (--harness):
  opencode  {{"decision": "allow"|"ask"|"deny"|"block", "reason"?, "context"?, "updated_args"?, "rule_ids"?}}
  claude    Claude Code's hook output: hookSpecificOutput.permissionDecision / updatedInput /
            additionalContext, decision "block" + reason, continue false + stopReason (docs/claude-code.md)
  codex     Claude Code's format as Codex CLI reads it: deny needs a reason, no ask (the ask fallback,
            deny unless CUPCAKE_ASK_FALLBACK=allow), modify = allow + updatedInput (docs/codex.md)
  gemini    Gemini CLI's format: decision "deny" + reason, hookSpecificOutput.tool_input (modify),
            continue false (halt); no ask (the ask fallback) (docs/gemini-cli.md)
  qwen      Claude Code's format as Qwen Code reads it; no modified input (a modify is a deny)
            (docs/qwen-code.md)
  copilot, factory, cline, cursor
            each agent's own hook answer (docs/copilot-cli.md, factory-droid.md, cline.md, cursor.md);
            copilot and cline read the event name from CUPCAKE_HOOK_EVENT (set by their installed hooks)

Policies come from .cupcake/ (rulebook.yml, policies/<harness>/**/*.rego, signals/) and the global
config dir; they are compiled to WebAssembly by cupcake-py (cached) and run under wasmtime.
Any failure fails closed with exit status 2: opencode prints {{"decision": "deny", "reason": "cupcake: ..."}};
claude, codex, gemini and qwen print the event's deny and the reason on stderr (each agent blocks on exit 2);
copilot, factory, cline and cursor print the agent's blocking answer (cline: cancel), exit 2 (factory's
events without a tool or prompt: continue false, exit 0, which ends the session).

Exit status: 0 decision printed, 1 deny/block with --strict (opencode; the others: 2), 2 fail-closed error.

Examples:

  echo '{{"hook_event_name":"PreToolUse","session_id":"s","cwd":"'$PWD'","tool":"bash","args":{{"command":"ls"}}}}' | cupcake eval --harness opencode
  echo '{{"hook_event_name":"PreToolUse","session_id":"s","cwd":"'$PWD'","tool_name":"Bash","tool_input":{{"command":"ls"}}}}' | cupcake eval --harness claude

Options:

{help_text()}
"""


SERVE_HELP = f"""Answer many evaluations from one warm process (JSON lines on stdin/stdout).

  cupcake serve --stdio [options]

Each input line is a request:
  {{"id": <string|integer>, "harness": "opencode", "event": {{<the event cupcake eval reads>}}, "policy_dir"?: "<abs dir>"}}
Each output line answers one request, in order:
  {{"id": ..., "exit_code": 0|1|2, "response": {{<what cupcake eval prints>}}}}   (+ "error" for a malformed line)

exit_code means what cupcake eval's exit status means (0 decision, 1 deny/block with --strict,
2 fail-closed error). The project is found from the event's cwd (or policy_dir). Bundles and
policy instances stay warm; a change to policies, rulebook.yml or the global config is picked
up by the next request. Errors answer that request with a deny and the server keeps serving;
end of stdin ends it. See docs/serve.md.

Options (those of cupcake eval, applied to every request; --policy-dir is a default):

  --stdio                    Serve JSON lines on stdin/stdout (required).
{help_text()}
"""
