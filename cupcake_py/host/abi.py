"""OPA WASM ABI facts the host checks (reference: opa-wasm-abi.md sections 2-4)."""

from __future__ import annotations

from cupcake_py.host import capi
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
        want = HOST_IMPORTS.get(name, -1) if mod == "env" else -1
        if want is None and ty.kind == "memory":
            memory = ty
        elif isinstance(want, int) and want >= 0 and ty.kind == "func" and len(ty.params) == want and \
                all(p == "i32" for p in ty.params) and \
                ty.results == (() if name in ("opa_abort", "opa_println") else ("i32",)):
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
