"""How many modules a cold `cupcake eval` loads: a routing miss and a routed event (WASM under
wasmtime, host builtins), counted in the process that answered. Moving modules between packages
or breaking an import cycle must not change these counts (issue 34); a new module on the path is
a start-up cost and raises them. Functional (a count of sys.modules), not timing.

BUDGET holds the counts measured before the layout moved (Python 3.11): all modules, and those of
cupcake_py. A package of cupcake_py whose `__init__.py` is only a docstring is not counted: it
runs no code (a directory marker), and a move into a new package adds exactly one (core/, app/).
A count above its budget fails with the modules to look at; a count below it (a lighter path) fails
too, so the budget is lowered in the same change and the gain stays.

Counted twice: with `audit: off` (the stateless path, BUDGET) and with the rulebook's default, which
records every evaluation (RECORDING: the audit write adds the governance store, chain and redaction
modules and `_sqlite3` with what its init imports; measured when audit became the default).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import cupcake_py

from .test_import_diet import PROBE, probe_project

# event -> (modules loaded, of which cupcake_py's)
BUDGET = {"routing miss": (78, 30), "routed read": (108, 53)}  # (routed: -4, issue 32: no threading; -3: no decimal)
RECORDING = {"routing miss": (86, 34), "routed read": (123, 57)}

PACKAGE = Path(cupcake_py.__file__).parent


def _marker(module: str) -> bool:
    """A package of cupcake_py whose `__init__.py` holds a docstring and nothing else."""
    init = PACKAGE.parent.joinpath(*module.split("."), "__init__.py")
    if not module.startswith("cupcake_py.") or not init.is_file():
        return False
    body = ast.parse(init.read_text(encoding="utf-8")).body
    return len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)


def _loaded(event: dict[str, object], project: Path, env: dict[str, str]) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(event)], capture_output=True, text=True,
                          cwd=project, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    modules: list[str] = json.loads(proc.stderr.splitlines()[-1])["modules"]
    return [m for m in modules if not _marker(m)]


@pytest.mark.parametrize("audit", ["off", "default"])
def test_cold_eval_loads_the_budgeted_number_of_modules(tmp_path: Path, audit: str) -> None:
    project, env = probe_project(tmp_path, audit)
    budget = BUDGET if audit == "off" else RECORDING
    base = {"session_id": "s", "cwd": str(project), "call_id": "c", "tool": "read"}
    events = {  # protected_files routes a Read of .env (deny); nothing routes a PermissionRequest
        "routed read": {**base, "hook_event_name": "PreToolUse", "args": {"filePath": str(project / ".env")}},
        "routing miss": {**base, "hook_event_name": "PermissionRequest",
                         "args": {"filePath": str(project / "src/app.py")}},
    }
    _loaded(events["routed read"], project, env)  # builds the bundle and compiles native code: not cold
    loaded = {name: _loaded(event, project, env) for name, event in events.items()}
    assert "cupcake_py.host.capi" in loaded["routed read"] and "cupcake_py.host" not in loaded["routing miss"]
    counts = {name: (len(mods), sum(m.startswith("cupcake_py") for m in mods)) for name, mods in loaded.items()}
    assert counts == budget, (
        f"cold `cupcake eval` loads {counts} modules (all, cupcake_py), budget {budget}: a new module on the path "
        "is a start-up cost (docs/architecture.md section 6); a lighter path lowers BUDGET")
