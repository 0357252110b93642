"""The fail-closed hook command the installers of the hook-command harnesses write (GitHub Copilot CLI,
Factory Droid, Cline, Cursor), and the checks `cupcake init` makes before writing it.

Every one of these agents lets the tool run when a hook crashes, times out or prints something
that is not its JSON (measured; Cline even waits out a slow hook). So the hook is a POSIX `sh`
script around `cupcake eval` that can only end in cupcake's own answer or the agent's blocking
answer:
- `cupcake` is looked up on PATH (never one machine's absolute path); missing -> blocking answer;
- coreutils `timeout` (when present) kills cupcake at KILL_AFTER seconds, cupcake's own
  `--hard-timeout` answers at HARD_TIMEOUT, both below the hook timeout the installer writes;
- cupcake's stdout is captured: exit 0 or 2 with a JSON object -> passed through with that exit;
  anything else (a crash, a kill, 127, empty or partial output) -> the agent's blocking JSON
  `block_json` and exit `block_exit`, with the reason on stderr.
In: the harness name, its blocking JSON and exit, optional `env` assignments (e.g. the event name
for agents whose stdin does not carry it). Out: the script text. `require_cupcake()` raises
InstallError when `cupcake` is not on PATH (the hook could only block everything). The deadlines and
InstallError are cupcake_py/harness/hook_settings.py's (one set for every hook-command agent); the
difference to its wrapper: these agents need the blocking JSON on stdout (Cline ignores exit codes, Copilot
ignores exit 2 on prompts), so cupcake's stdout is captured and checked instead of only its exit status.
"""

from __future__ import annotations

import json
import shlex

from cupcake_py.harness.hook_settings import (
    EVAL_TIMEOUT,
    HARD_TIMEOUT,
    KILL_AFTER,
    InstallError,
    require_cupcake_on_path,
)

FAILED = "cupcake: the policy check failed; blocked (fail closed)"
MISSING = "cupcake: `cupcake` is not on PATH; blocked (fail closed)"


__all__ = ["InstallError", "guarded_script", "require_cupcake", "sh_command"]


def require_cupcake() -> str:
    """`cupcake` as found on PATH; InstallError (with what to do) when it is not there."""
    return require_cupcake_on_path()


def eval_args(harness: str, eval_timeout: float = EVAL_TIMEOUT, hard_timeout: float = HARD_TIMEOUT) -> str:
    return f"eval --harness {harness} --timeout {eval_timeout:g} --hard-timeout {hard_timeout:g}"


def block_text(block: dict[str, object]) -> str:
    return json.dumps(block, separators=(",", ":"))


def guarded_script(harness: str, block: dict[str, object], block_exit: int, env: dict[str, str] | None = None, *,
                   eval_timeout: float = EVAL_TIMEOUT, hard_timeout: float = HARD_TIMEOUT,
                   kill_after: float = KILL_AFTER) -> str:
    """The sh script (see the module docstring); `block` carries FAILED or MISSING (REASON marks where)."""
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


REASON = "@REASON@"  # placeholder in a harness's blocking JSON


def sh_command(script: str) -> str:
    return "sh -c " + shlex.quote(script)
