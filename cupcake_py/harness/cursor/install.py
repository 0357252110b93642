"""`cupcake init --harness cursor [--global] [--uninstall]`: cupcake's command hooks in Cursor's
`<project>/.cursor/hooks.json` (or `~/.cursor/hooks.json` with --global), per Cursor's documented contract.

In: the hooks file (missing = `{"version": 1, "hooks": {}}`; anything but a JSON object, or `hooks` that
is not an object, is an error and the file is left untouched). Out: the same file with, for every event in
EVENTS, one hook `{"command": <guard>, "timeout": 60000, "failClosed": true}` appended after the
user's hooks of that event. Ours are the hooks whose command runs `eval --harness cursor` (the mark):
re-running replaces exactly those (idempotent), `--uninstall` removes only them. Written atomically.

Fail closed: `failClosed: true` (documented: block when the hook fails), exit 2 + blocking JSON from the
guard (cupcake_py/harness/guard.py) on any failure of cupcake, cupcake from PATH. The documented unit of
`timeout` differs between sources (seconds or milliseconds): 60000 is 60 s if it is
milliseconds and more than cupcake ever takes if it is seconds (the guard ends cupcake at KILL_AFTER).
The merge is cupcake_py/harness/hook_settings.py's (one row).
"""

from __future__ import annotations

import os
from pathlib import Path

from cupcake_py.harness.answers import failure_form
from cupcake_py.harness.cursor.response import ANSWERS
from cupcake_py.harness.guard import REASON, guarded_script, require_cupcake, sh_command
from cupcake_py.harness.hook_settings import HookInstaller, Settings

# The events cupcake answers (the gates, prompts, context and stop; after* events only add history).
EVENTS = ("preToolUse", "postToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile",
          "afterFileEdit", "beforeSubmitPrompt", "sessionStart", "sessionEnd", "subagentStart", "subagentStop", "stop")


def hooks_path(project: Path | None) -> Path:
    if project is None:
        return Path(os.environ.get("HOME") or Path.home()) / ".cursor" / "hooks.json"
    return project / ".cursor" / "hooks.json"


def hook_command(_event: str = "", _project: Path | None = None) -> str:
    require_cupcake()
    return sh_command(guarded_script("cursor", *failure_form(ANSWERS, None, REASON)))


def only_cupcakes(rest: Settings) -> bool:
    return rest.get("hooks") == {} and set(rest) <= {"version", "hooks"}


# timeout: 60 s written in milliseconds (60000; see above)
INSTALLER = HookInstaller("cursor", hooks_path, tuple((e, None) for e in EVENTS), 1000, command=hook_command,
                          hook={"failClosed": True}, grouped=False, header={"version": 1}, noun="the hooks file",
                          empty=only_cupcakes)
