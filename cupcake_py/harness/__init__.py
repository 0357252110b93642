"""Harnesses: one per coding agent (`--harness NAME`). Each is a value implementing
cupcake_py.engine.harness_api.Harness, handed to the engine by `cupcake eval`
(cupcake_py/fast_eval.py); the engine never imports a harness.

| name     | agent       | how events arrive                                      |
| opencode | OpenCode    | the plugin .opencode/plugin/cupcake.js spawns cupcake  |
| claude   | Claude Code | command hooks in .claude/settings.json (`cupcake init`) |
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.engine.harness_api import Harness

DEFAULT = "opencode"
# name -> module defining HARNESS (imported only for the harness asked for)
MODULES = {"opencode": "cupcake_py.harness.opencode.harness", "claude": "cupcake_py.harness.claude.harness"}
NAMES = tuple(MODULES)


class UnknownHarness(LookupError):
    pass


def get(name: str | None) -> Harness:
    """The harness called `name` (None: the default, opencode)."""
    module = MODULES.get(name or DEFAULT)
    if module is None:
        raise UnknownHarness(f"unknown harness {name!r} (known: {', '.join(NAMES)})")
    mod = __import__(module, fromlist=["HARNESS"])
    return mod.HARNESS  # type: ignore[no-any-return]
