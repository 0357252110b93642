"""Fast calls of i32-only wasm exports.

`wasmtime.Func.__call__` re-reads the function type and converts every argument through
`Val` objects on each call (~50 µs for a 7-argument `opa_eval`). Every OPA ABI export
takes and returns i32 only, so after checking an export's type once we call it through
wasmtime's `wasmtime_func_call_unchecked` with a raw argument buffer. Traps and Python
exceptions raised by host imports surface exactly as with `Func.__call__` (same
`enter_wasm` handling). If this wasmtime build lacks the pieces, `Func.__call__` is used.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import wasmtime

try:
    from wasmtime import _ffi as _wffi
    from wasmtime._func import enter_wasm as _enter_wasm

    _RAW = _wffi.wasmtime_val_raw_t
    _CALL = _wffi.wasmtime_func_call_unchecked
    _AVAILABLE = True
except (ImportError, AttributeError):  # pragma: no cover - depends on the wasmtime build
    _AVAILABLE = False

I32Fn = Callable[..., int]


def i32_signature(ty: object) -> tuple[int, int] | None:
    """(params, results) of an i32-only function type with at most one result, else None."""
    if not isinstance(ty, wasmtime.FuncType):
        return None
    params, results = ty.params, ty.results
    if len(results) > 1 or any(str(t) != "i32" for t in [*params, *results]):
        return None
    return len(params), len(results)


def i32_caller(func: wasmtime.Func, sig: tuple[int, int] | None) -> I32Fn:
    """A callable `(store_or_caller, *i32 args) -> int | None` for an exported function
    whose signature `i32_signature` computed. Results are returned unsigned (addresses or
    small codes)."""
    if not _AVAILABLE or sig is None:
        return func
    nparams, nresults = sig
    size = max(nparams, nresults, 1)
    buf_type = _RAW * size
    func_ref = ctypes.byref(func._func)

    def call(store: Any, *args: int, _keep: wasmtime.Func = func) -> int | None:
        if len(args) != nparams:
            raise TypeError(f"expected {nparams} arguments, got {len(args)}")
        buf = buf_type()
        for i, a in enumerate(args):
            buf[i].i32 = a
        with _enter_wasm(store) as trap:
            error = _CALL(store._context(), func_ref, buf, size, trap)
            if error:
                raise wasmtime.WasmtimeError._from_ptr(error)
        return buf[0].i32 & 0xFFFFFFFF if nresults else None

    return call
