"""`cupcake init --harness factory [--global] [--uninstall]`: cupcake's command hooks in Factory Droid's
`<project>/.factory/hooks.json` (or `~/.factory/hooks.json` with --global).

In: the hooks file (missing = `{}`; anything but a JSON object is an error and the file is left
untouched). Droid reads event keys at the TOP level (a `hooks` wrapper is ignored, measured). Out: the
same file with, for every event of harness.TOOL_EVENTS + OTHER_EVENTS, one group
`{"matcher": "*", "hooks": [{"type": "command", "command": <guard>, "timeout": HOOK_TIMEOUT}]}` appended
after the user's groups. Ours are the hooks whose command runs `eval --harness factory` (the mark):
re-running replaces exactly those (idempotent), `--uninstall` removes only them; every other key, group
and hook stays. Written atomically. No trust step (Droid runs project hooks headless without asking).

The guard (cupcake_py/harness/guard.py) runs `cupcake` from PATH and turns every failure into the event's
blocking answer (the failure forms of response.py: exit 2 + deny for tool calls and prompts, `continue: false` elsewhere);
cupcake's deadlines stay below the hook `timeout`, past which Droid would run the tool. The merge is
cupcake_py/harness/hook_settings.py's (one row).
"""

from __future__ import annotations

import os
from pathlib import Path

from cupcake_py.harness.answers import failure_form
from cupcake_py.harness.factory.harness import OTHER_EVENTS, TOOL_EVENTS
from cupcake_py.harness.factory.response import ANSWERS
from cupcake_py.harness.guard import REASON, guarded_script, require_cupcake, sh_command
from cupcake_py.harness.hook_settings import HookInstaller


def hooks_path(project: Path | None) -> Path:
    if project is None:
        return Path(os.environ.get("HOME") or Path.home()) / ".factory" / "hooks.json"
    return project / ".factory" / "hooks.json"


def hook_command(event: str, _project: Path | None = None) -> str:
    require_cupcake()
    block, code = failure_form(ANSWERS, event, REASON)
    return sh_command(guarded_script("factory", block, code))


INSTALLER = HookInstaller("factory", hooks_path, tuple((e, "*") for e in TOOL_EVENTS + OTHER_EVENTS), 1,
                          command=hook_command, under=None, noun="the hooks file", empty=lambda rest: not rest)
