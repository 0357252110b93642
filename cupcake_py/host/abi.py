"""OPA WASM ABI facts the host checks (reference: opa-wasm-abi.md sections 2-4) and a
static description of a module's imports/exports."""

from __future__ import annotations

from typing import NamedTuple

import wasmtime

from cupcake_py.host.errors import ABIError

ABI_MAJOR = 1

# Exports every ABI 1.x module has (the context path and host I/O).
REQUIRED_EXPORTS: tuple[str, ...] = (
    "eval", "builtins", "entrypoints",
    "opa_eval_ctx_new", "opa_eval_ctx_set_input", "opa_eval_ctx_set_data",
    "opa_eval_ctx_set_entrypoint", "opa_eval_ctx_get_result",
    "opa_malloc", "opa_json_parse", "opa_json_dump", "opa_heap_ptr_get", "opa_heap_ptr_set",
)
# Needed only to call host builtins (argument / result conversion).
BUILTIN_IO_EXPORTS: tuple[str, ...] = ("opa_value_dump", "opa_value_parse")
FAST_PATH_EXPORT = "opa_eval"  # ABI >= 1.2
HOST_CALLED_EXPORTS = frozenset(REQUIRED_EXPORTS + BUILTIN_IO_EXPORTS + (FAST_PATH_EXPORT,))

# Imports the host provides (module "env"): name -> number of i32 params (None: memory).
HOST_IMPORTS: dict[str, int | None] = {
    "memory": None,
    "opa_abort": 1,
    "opa_println": 1,
    "opa_builtin0": 2,
    "opa_builtin1": 3,
    "opa_builtin2": 4,
    "opa_builtin3": 5,
    "opa_builtin4": 6,
}


class Extern(NamedTuple):
    module: str  # "" for exports
    name: str
    kind: str  # func, memory, global, table
    signature: str

    def as_dict(self) -> dict[str, str]:
        d = {"name": self.name, "kind": self.kind, "type": self.signature}
        if self.module:
            d = {"module": self.module, **d}
        return d


def _describe(ty: object) -> tuple[str, str]:
    if isinstance(ty, wasmtime.FuncType):
        params = ", ".join(str(p) for p in ty.params)
        results = ", ".join(str(r) for r in ty.results)
        return "func", f"({params}) -> ({results})"
    if isinstance(ty, wasmtime.MemoryType):
        lim = ty.limits
        return "memory", f"min {lim.min} pages" + (f", max {lim.max}" if lim.max is not None else "")
    if isinstance(ty, wasmtime.GlobalType):
        return "global", ("mut " if ty.mutable else "") + str(ty.content)
    if isinstance(ty, wasmtime.TableType):
        return "table", f"{ty.element} min {ty.limits.min}"
    return type(ty).__name__, ""


def imports_of(module: wasmtime.Module) -> list[Extern]:
    out = []
    for imp in module.imports:
        kind, sig = _describe(imp.type)
        out.append(Extern(imp.module, imp.name or "", kind, sig))
    return out


def exports_of(module: wasmtime.Module) -> list[Extern]:
    out = []
    for exp in module.exports:
        kind, sig = _describe(exp.type)
        out.append(Extern("", exp.name, kind, sig))
    return out


def check_imports(module: wasmtime.Module) -> wasmtime.MemoryType | None:
    """Validate the imports against what the host provides; return the memory import type."""
    memory: wasmtime.MemoryType | None = None
    bad: list[str] = []
    for imp in module.imports:
        name = imp.name or ""
        want = HOST_IMPORTS.get(name, -1) if imp.module == "env" else -1
        ty = imp.type
        if want is None and isinstance(ty, wasmtime.MemoryType):
            memory = ty
        elif isinstance(want, int) and want >= 0 and isinstance(ty, wasmtime.FuncType) and \
                len(ty.params) == want and all(str(p) == "i32" for p in ty.params) and \
                len(ty.results) == (0 if name in ("opa_abort", "opa_println") else 1):
            continue
        else:
            bad.append(f"{imp.module}.{name} ({_describe(ty)[1]})")
    if bad:
        raise ABIError("module imports what an OPA WASM host does not provide: " + ", ".join(bad))
    return memory


def check_exports(names: frozenset[str] | set[str], need_builtin_io: bool) -> None:
    want = REQUIRED_EXPORTS + (BUILTIN_IO_EXPORTS if need_builtin_io else ())
    missing = [n for n in want if n not in names]
    if missing:
        raise ABIError("module lacks OPA ABI exports: " + ", ".join(missing))
