"""The fail-closed hook commands every installer writes, the deadlines they keep, and the check
`cupcake init` makes before writing one.

Every agent lets the tool run when a hook crashes, times out or prints something that is not its JSON
(measured; Cline even waits out a slow hook). So a hook is a POSIX `sh` script around `cupcake eval`
that can only end in cupcake's own answer or the agent's blocking answer:
- `cupcake` is looked up on PATH (never one machine's absolute path; Claude Code's global hook names
  this installation's executable); missing -> blocking answer;
- coreutils `timeout` (when present) kills cupcake at KILL_AFTER seconds, cupcake's own `--hard-timeout`
  answers at HARD_TIMEOUT and `--timeout` bounds one evaluation at EVAL_TIMEOUT, all below the hook
  timeout the installers write (HOOK_TIMEOUT_S, in the agent's unit), past which the agent would give up
  on the hook and run the tool.
Two forms:
- `hook_command(harness)`: for agents that block on exit 2 (Claude Code, Codex, Gemini CLI, Qwen Code):
  ANY other non-zero status (cupcake missing: 127, killed: 124/137, a crash: 1) becomes exit 2 with the
  reason on stderr;
- `guarded_script(harness, block_json, block_exit, env)`: for agents that need the blocking JSON on stdout
  (Cline ignores exit codes, Copilot ignores exit 2 on prompts): cupcake's stdout is captured; exit 0 or
  2 with a JSON object passes through, anything else (a crash, a kill, 127, empty or partial output)
  prints `block_json` (REASON replaced by the failure) and exits `block_exit`, the reason on stderr;
  `env` assignments name the event for agents whose stdin does not carry it.
`require_cupcake()` raises InstallError when `cupcake` is not on PATH (the hook could only block
everything).
"""

from __future__ import annotations

import json
import shlex
import shutil

from cupcake_py.harness.files import InstallError

EVAL_TIMEOUT = 10  # --timeout: routing, signals and WASM of one evaluation
HARD_TIMEOUT = 40  # --hard-timeout: the whole process, a bundle (re)build included
KILL_AFTER = 50  # coreutils timeout: SIGTERM, then SIGKILL 5 s later
HOOK_TIMEOUT_S = 60  # the hook timeout written to the agent's settings (seconds; converted to its unit)

FAILED = "cupcake: the policy check failed; blocked (fail closed)"
MISSING = "cupcake: `cupcake` is not on PATH; blocked (fail closed)"
REASON = "@REASON@"  # placeholder in a harness's blocking JSON

__all__ = ["EVAL_TIMEOUT", "HARD_TIMEOUT", "HOOK_TIMEOUT_S", "KILL_AFTER", "REASON", "InstallError",
           "guarded_script", "hook_command", "require_cupcake", "sh_command"]


def require_cupcake() -> str:
    """`cupcake` as found on PATH; InstallError (with what to do) when it is not there."""
    found = shutil.which("cupcake")
    if not found:
        raise InstallError("`cupcake` is not on PATH, so the agent could not run its hook: install it "
                           "(`pipx install cupcake-py`, or activate the environment that has it) and re-run")
    return found


def eval_args(harness: str, eval_timeout: float = EVAL_TIMEOUT, hard_timeout: float = HARD_TIMEOUT) -> str:
    return f"eval --harness {harness} --timeout {eval_timeout:g} --hard-timeout {hard_timeout:g}"


def sh_command(script: str) -> str:
    return "sh -c " + shlex.quote(script)


def hook_command(harness: str, eval_timeout: float = EVAL_TIMEOUT, hard_timeout: float = HARD_TIMEOUT,
                 kill_after: float = KILL_AFTER, executable: str = "cupcake") -> str:
    """The exit-status form (see the module docstring)."""
    exe = shlex.quote(executable)
    args = eval_args(harness, eval_timeout, hard_timeout)
    return sh_command(
        f'if command -v timeout >/dev/null 2>&1; then timeout -k 5 {kill_after:g} {exe} {args}; '
        f'else {exe} {args}; fi; s=$?; [ "$s" -eq 0 ] && exit 0; '
        '[ "$s" -eq 2 ] || echo "cupcake: the policy check failed (exit $s); blocked (fail closed)" >&2; exit 2'
    )


def block_text(block: dict[str, object]) -> str:
    return json.dumps(block, separators=(",", ":"))


def guarded_script(harness: str, block: dict[str, object], block_exit: int, env: dict[str, str] | None = None, *,
                   eval_timeout: float = EVAL_TIMEOUT, hard_timeout: float = HARD_TIMEOUT,
                   kill_after: float = KILL_AFTER) -> str:
    """The stdout form (see the module docstring); `block` carries FAILED or MISSING where it says REASON."""
    failed = shlex.quote(block_text(_with_reason(block, FAILED)))
    missing = shlex.quote(block_text(_with_reason(block, MISSING)))
    assign = "".join(f"{k}={shlex.quote(v)}; export {k}; " for k, v in (env or {}).items())
    args = eval_args(harness, eval_timeout, hard_timeout)
    return (
        f"{assign}"
        f"if ! command -v cupcake >/dev/null 2>&1; then echo {shlex.quote(MISSING)} >&2; printf '%s\\n' {missing}; "
        f"exit {block_exit}; fi; "
        f"if command -v timeout >/dev/null 2>&1; then out=$(timeout -k 5 {kill_after:g} cupcake {args}); "
        f"else out=$(cupcake {args}); fi; s=$?; "
        'case "$out" in "{"*"}") j=1;; *) j=0;; esac; '
        'if [ "$j" = 1 ] && { [ "$s" -eq 0 ] || [ "$s" -eq 2 ]; }; then printf \'%s\\n\' "$out"; exit "$s"; fi; '
        f'echo "{FAILED} (exit $s)" >&2; printf \'%s\\n\' {failed}; exit {block_exit}'
    )


def _with_reason(block: dict[str, object], reason: str) -> dict[str, object]:
    """`block` with every value (at any depth) that is the placeholder REASON replaced by `reason`."""
    return {k: reason if v == REASON else _with_reason(v, reason) if isinstance(v, dict) else v
            for k, v in block.items()}
