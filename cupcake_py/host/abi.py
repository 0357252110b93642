"""The host's checks of a module against the OPA WASM ABI (reference: opa-wasm-abi.md
sections 2-4). The names and signatures come from the one ABI table, `cupcake_py.wasm.abi`.

In: a compiled `capi.Module` (imports) or its export names. Out: the memory import type, or
`ABIError` naming every import the host does not provide / every export the host needs and
the module lacks (the caller fails closed on it).
"""

from __future__ import annotations

from cupcake_py.host import capi
from cupcake_py.host.errors import ABIError
from cupcake_py.wasm.abi import (
    BUILTIN_IO_EXPORTS,
    HOST_IMPORTS,
    IMPORT_MEMORY,
    IMPORT_MODULE,
    REQUIRED_EXPORTS,
)


def describe(ty: capi.ExternType) -> str:
    """A one-line description of an import's / export's type."""
    if ty.kind == "func":
        return f"({', '.join(ty.params)}) -> ({', '.join(ty.results)})"
    if ty.kind == "memory":
        return f"min {ty.minimum} pages" + (f", max {ty.maximum}" if ty.maximum is not None else "")
    if ty.kind == "global":
        return ("mut " if ty.mutable else "") + ty.content
    if ty.kind == "table":
        return f"{ty.element} min {ty.minimum}"
    return ""


def check_imports(module: capi.Module) -> capi.ExternType | None:
    """Validate the imports against what the host provides; return the memory import type."""
    memory: capi.ExternType | None = None
    bad: list[str] = []
    for mod, name, ty in module.imports():
        if mod == IMPORT_MODULE and name == IMPORT_MEMORY and ty.kind == "memory":
            memory = ty
        elif mod == IMPORT_MODULE and ty.kind == "func" and HOST_IMPORTS.get(name) == (ty.params, ty.results):
            continue
        else:
            bad.append(f"{mod}.{name} ({describe(ty)})")
    if bad:
        raise ABIError("module imports what an OPA WASM host does not provide: " + ", ".join(bad))
    return memory


def check_exports(names: frozenset[str] | set[str], need_builtin_io: bool) -> None:
    want = REQUIRED_EXPORTS + (BUILTIN_IO_EXPORTS if need_builtin_io else ())
    missing = [n for n in want if n not in names]
    if missing:
        raise ABIError("module lacks OPA ABI exports: " + ", ".join(missing))
