"""Harnesses: one per coding agent (`--harness NAME`). Each is a value implementing
cupcake_py.engine.harness_api.Harness (validate, normalise, answer, fail closed), handed to the engine
by `cupcake eval` (cupcake_py/app/fast_eval.py; the engine never imports a harness), plus `SetupHarness`
below (install/uninstall itself for `cupcake init`, where its example events live). Its data (tool
map, schemas, example events) is in `harness/<name>/`; its policies in `.cupcake/policies/<name>/`. The
hook-command agents (codex to cursor below) are rows of one framework, harness/hook_agent.py; the example
project every harness's events run against is `harness/examples/project`.

| name     | agent       | how events arrive                                      |
| opencode | OpenCode    | the plugin .opencode/plugin/cupcake.js spawns cupcake  |
| claude   | Claude Code | command hooks in .claude/settings.json (`cupcake init`) |
| codex    | Codex CLI   | command hooks in .codex/hooks.json (`cupcake init`; Codex asks to trust them) |
| gemini   | Gemini CLI  | command hooks in .gemini/settings.json (`cupcake init`; the folder is trusted) |
| qwen     | Qwen Code   | command hooks in .qwen/settings.json (`cupcake init`) |
| copilot  | GitHub Copilot CLI | command hooks in .github/hooks/cupcake.json        |
| factory  | Factory Droid | command hooks in .factory/hooks.json                 |
| cline    | Cline       | one executable per event in .clinerules/hooks/         |
| cursor   | Cursor      | command hooks in .cursor/hooks.json                    |

Registering an agent is one row of MODULES (its package `cupcake_py/harness/<name>/` and data dir
`harness/<name>/`); `cupcake protect` and `cupcake verify --all` find every registered harness there
(cupcake_py/authoring/agents.py reads what each harness offers).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from cupcake_py.engine.harness_api import Harness
    from cupcake_py.harness.files import FileAction

    class SetupHarness(Harness):
        def install(self, directory: Path | None, force: bool) -> list[tuple[str, FileAction]]:
            """Put the agent's hook in place for the project `directory` (None: globally);
            [(path, created|unchanged|kept|overwritten)]."""
            ...

        def uninstall(self, directory: Path | None) -> list[tuple[str, FileAction]]: ...

        def examples_dir(self) -> str: ...

DEFAULT = "opencode"
# name -> module defining HARNESS (imported only for the harness asked for)
MODULES = {
    "opencode": "cupcake_py.harness.opencode.harness",
    "claude": "cupcake_py.harness.claude.harness",
    "codex": "cupcake_py.harness.codex.harness",
    "gemini": "cupcake_py.harness.gemini.harness",
    "qwen": "cupcake_py.harness.qwen.harness",
    "copilot": "cupcake_py.harness.copilot.harness",
    "factory": "cupcake_py.harness.factory.harness",
    "cline": "cupcake_py.harness.cline.harness",
    "cursor": "cupcake_py.harness.cursor.harness",
}
NAMES = tuple(MODULES)


class UnknownHarness(LookupError):
    pass


def get(name: str | None) -> SetupHarness:
    """The harness called `name` (None: the default, opencode)."""
    module = MODULES.get(name or DEFAULT)
    if module is None:
        raise UnknownHarness(f"unknown harness {name!r} (known: {', '.join(NAMES)})")
    mod = __import__(module, fromlist=["HARNESS"])
    harness: SetupHarness = mod.HARNESS
    return harness
