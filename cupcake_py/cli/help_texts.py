"""The help texts of `cupcake eval` and `cupcake serve`, without typer.

`cupcake eval --help` and `cupcake serve --help` are answered by the fast paths
(`cupcake_py.app.fast_eval`, `cupcake_py.app.serve`), which print these strings; the typer app
(`cli/eval_serve.py`) shows their first line in `cupcake --help`. They are laid out as click lays
out every other command's --help (the root app has rich_markup_mode=None): the description indented
by two spaces, then `Options:` with the flags in one column and their help wrapped beside it, so
every command's --help has one style. Out: str constants; nothing fails.
"""

from __future__ import annotations

from cupcake_py.engine.options import OPTIONS

WIDTH = 80  # click's default maximum
COLUMN = 30  # click's col_max: a longer flag puts its help on the next line


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def options_block(rows: list[tuple[str, str]]) -> str:
    """`Options:` and one row per (flag with metavar, help), in click's two-column layout."""
    first = min(COLUMN, max(len(left) for left, _ in rows))
    out = ["Options:"]
    for left, text in rows:
        wrapped = _wrap(text, WIDTH - first - 4)
        if len(left) > first:
            out.append(f"  {left}")
            out.extend(f"  {'':<{first}}  {w}" for w in wrapped)
        else:
            out.append(f"  {left:<{first}}  {wrapped[0] if wrapped else ''}".rstrip())
            out.extend(f"  {'':<{first}}  {w}" for w in wrapped[1:])
    return "\n".join(out) + "\n"


def _indent(text: str) -> str:
    return "".join(f"  {line}" if line.strip() else line for line in text.splitlines(keepends=True))


def help_text() -> str:
    return options_block([(f"{flag} {metavar}".strip(), text) for flag, _, _kind, metavar, text in OPTIONS])


EVAL_SUMMARY = "Evaluate one agent event against the project's policies."
SERVE_SUMMARY = "Answer many evaluations from one warm process (JSON lines on stdin/stdout)."

_EVAL_BODY = """Evaluate one agent event against the project's policies.

Reads one agent event (JSON) on stdin, prints one JSON answer line on stdout in the format of the
harness (--harness):
  opencode  {"decision": "allow"|"ask"|"deny"|"block", "reason"?, "context"?, "updated_args"?, "rule_ids"?}
  claude    Claude Code's hook output: hookSpecificOutput.permissionDecision / updatedInput /
            additionalContext, decision "block" + reason, continue false + stopReason
            (`cupcake docs claude-code`)
  codex     Claude Code's format as Codex CLI reads it: deny needs a reason, no ask (the ask fallback,
            deny unless CUPCAKE_ASK_FALLBACK=allow), modify = allow + updatedInput (`cupcake docs codex`)
  gemini    Gemini CLI's format: decision "deny" + reason, hookSpecificOutput.tool_input (modify),
            continue false (halt); no ask (the ask fallback) (`cupcake docs gemini-cli`)
  qwen      Claude Code's format as Qwen Code reads it; no modified input (a modify is a deny)
            (`cupcake docs qwen-code`)
  copilot, factory, cline, cursor
            each agent's own hook answer (`cupcake docs copilot-cli`, `cupcake docs factory-droid`,
            `cupcake docs cline`, `cupcake docs cursor`);
            copilot and cline read the event name from CUPCAKE_HOOK_EVENT (set by their installed hooks)

Policies come from .cupcake/ (rulebook.yml, policies/<harness>/**/*.rego, signals/) and the global
config dir; they are compiled to WebAssembly by cupcake-py (cached) and run under wasmtime.
Any failure fails closed with exit status 2: opencode prints {"decision": "deny", "reason": "cupcake: ..."};
claude, codex, gemini and qwen print the event's deny and the reason on stderr (each agent blocks on exit 2);
copilot, factory, cline and cursor print the agent's blocking answer (cline: cancel), exit 2 (factory's
events without a tool or prompt: continue false, exit 0, which ends the session).

Exit status: 0 decision printed, 1 deny/block with --strict (opencode; the others: 2), 2 fail-closed error.

Examples:

    echo '{"hook_event_name":"PreToolUse","session_id":"s","cwd":"'$PWD'","tool":"bash","args":{"command":"ls"}}' | cupcake eval --harness opencode
    echo '{"hook_event_name":"PreToolUse","session_id":"s","cwd":"'$PWD'","tool_name":"Bash","tool_input":{"command":"ls"}}' | cupcake eval --harness claude
"""
# fast_eval prints "Usage: cupcake eval [OPTIONS] < EVENT.json\n\n" before this
EVAL_HELP = _indent(_EVAL_BODY) + "\n" + help_text()

_SERVE_BODY = """Answer many evaluations from one warm process (JSON lines on stdin/stdout).

  cupcake serve --stdio [options]

Each input line is a request:
  {"id": <string|integer>, "harness": "opencode", "event": {<the event cupcake eval reads>}, "policy_dir"?: "<abs dir>"}
Each output line answers one request, in order:
  {"id": ..., "exit_code": 0|1|2, "response": {<what cupcake eval prints>}}   (+ "error" for a malformed line)

exit_code means what cupcake eval's exit status means (0 decision, 1 deny/block with --strict,
2 fail-closed error). The project is found from the event's cwd (or policy_dir). Bundles and
policy instances stay warm; a change to policies, rulebook.yml or the global config is picked
up by the next request. Errors answer that request with a deny and the server keeps serving;
end of stdin ends it. See `cupcake docs serve`.

Options: those of cupcake eval, applied to every request (--policy-dir is a default), and --stdio.
"""
SERVE_HELP = ("Usage: cupcake serve --stdio [OPTIONS]\n\n" + _indent(_SERVE_BODY) + "\n"
              + options_block([("--stdio", "Serve JSON lines on stdin/stdout (required).")]
                              + [(f"{f} {m}".strip(), t) for f, _, _k, m, t in OPTIONS]))
