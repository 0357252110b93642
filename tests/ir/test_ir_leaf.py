"""The IR is a leaf package: importing it loads no front end, planner, backend or host module.

Why: the planner and the WASM backend both depend on the IR (as in OPA's ``v1/ir``); a tool
that only reads or writes plan JSON must not pay for (or be coupled to) the compiler stages.
Run in a fresh interpreter so modules imported by other tests do not hide a regression.
"""

from __future__ import annotations

import json
import subprocess
import sys

# Packages the IR must never pull in, each with the reason.
FORBIDDEN = {
    "cupcake_py.rego": "the front end (source -> AST) comes before the IR, the IR does not know it",
    "cupcake_py.plan": "the planner produces IR; the IR must not depend on its producer",
    "cupcake_py.wasm": "the backend consumes IR; the IR must not depend on its consumer",
    "cupcake_py.host": "the WASM host runs compiled modules, far downstream of the IR",
    "cupcake_py.engine": "the engine sits on top of every stage",
}
# The only cupcake_py modules the IR may load: the package root, the shared error base
# (IRError is a CupcakeError), the data-class decorator of its nodes (core/slotted: no
# code generated at import) and the IR itself.
ALLOWED_PREFIXES = ("cupcake_py.ir",)
ALLOWED_MODULES = {"cupcake_py", "cupcake_py.core.errors", "cupcake_py.core.slotted", "cupcake_py.core.slotted_inits"}


def _loaded_after(statement: str) -> list[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [m for m in json.loads(out.stdout) if m == "cupcake_py" or m.startswith("cupcake_py.")]


def _is_under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_import_ir_loads_no_stage_module() -> None:
    loaded = _loaded_after("import cupcake_py.ir")
    assert "cupcake_py.ir.nodes" in loaded  # the probe really imported the package
    bad = {m: why for m in loaded for pkg, why in FORBIDDEN.items() if _is_under(m, pkg)}
    assert not bad, f"import cupcake_py.ir loaded stage modules: {bad}"


def test_import_ir_loads_only_ir_and_the_error_base() -> None:
    loaded = _loaded_after("from cupcake_py import ir; ir.format_policy; ir.load; ir.dump")
    holders = {m.rsplit(".", i)[0] for m in ALLOWED_MODULES for i in range(m.count(".") + 1)}  # their packages
    extra = [m for m in loaded if m not in holders and not m.startswith(ALLOWED_PREFIXES)]
    assert not extra, f"the IR package imported modules outside itself: {extra}"


def test_the_probe_detects_a_stage_import() -> None:
    """The check above can fail: importing the planner does load rego/ modules."""
    loaded = _loaded_after("import cupcake_py.plan.planner")
    assert any(_is_under(m, "cupcake_py.rego") for m in loaded)
