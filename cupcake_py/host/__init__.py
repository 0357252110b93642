"""The wasmtime host: loads OPA-ABI WebAssembly policies and evaluates them.

Public interface: `PolicyModule` (compiled, cached), `PolicyInstance` (data loaded,
`eval`), `load_policy`, `HostOptions`, `UNDEFINED`, and the errors in
`cupcake_py.host.errors`. Host builtins live in `cupcake_py.host.builtins`.
"""

from __future__ import annotations

from cupcake_py.host.engine import HostOptions
from cupcake_py.host.policy import UNDEFINED, ModuleSummary, PolicyInstance, PolicyModule, load_policy

__all__ = ["HostOptions", "ModuleSummary", "PolicyInstance", "PolicyModule", "UNDEFINED", "load_policy"]
