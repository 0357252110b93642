"""The wasmtime host: loads OPA-ABI WebAssembly policies and evaluates them.

Public interface: `PolicyModule` (compiled, cached), `PolicyInstance` (data loaded,
`eval`), `load_policy`, `HostOptions`, `UNDEFINED`, `ModuleSummary` (from
`PolicyModule.summary()`), and the errors in `cupcake_py.host.errors`. Host builtins
live in `cupcake_py.host.builtins`.
"""

from __future__ import annotations

from cupcake_py.host.engine import HostOptions
from cupcake_py.host.policy import UNDEFINED, PolicyInstance, PolicyModule, load_policy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.host.summary import ModuleSummary

__all__ = ["HostOptions", "ModuleSummary", "PolicyInstance", "PolicyModule", "UNDEFINED", "load_policy"]


def __getattr__(name: str) -> object:
    if name == "ModuleSummary":  # not on the eval path (it needs typing.NamedTuple)
        from cupcake_py.host.summary import ModuleSummary

        return ModuleSummary
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
