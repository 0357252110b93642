"""Fast calls between Python and i32-only wasm functions.

`wasmtime.Func.__call__` re-reads the function type and converts every argument through
`Val` objects on each call (~50 µs for a 7-argument `opa_eval`), and host functions
defined with `Linker.define_func` pay the same conversions plus a `Caller` object per
call. Every OPA ABI export and import takes and returns i32 only, so:

* exports are called through `wasmtime_func_call_unchecked` with a preallocated raw
  argument buffer (`i32_caller`);
* imports are defined with `wasmtime_linker_define_func_unchecked` and receive the raw
  argument buffer (`define_import`);
* linear memory is addressed through `wasmtime_memory_data` (`memory_span`).

All of them take a *context*: the address of the store's (or, inside a host call, the
caller's) `wasmtime_context_t` (`context_of`). Traps and Python exceptions raised by host
imports surface exactly as with `Func.__call__`. If this wasmtime build lacks the pieces
(`AVAILABLE` is false), the same functions fall back to wasmtime's public API and the
context is the Store/Caller object itself.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable
from typing import Any

import wasmtime

try:
    from wasmtime import _ffi as _wffi
    from wasmtime import _func as _wfunc

    _dll = _wffi.dll
    _vp, _sz = ctypes.c_void_p, ctypes.c_size_t

    def _proto(name: str, restype: Any, *argtypes: Any) -> Any:
        fn = _dll[name]  # a fresh function pointer: wasmtime's own prototypes stay untouched
        fn.restype, fn.argtypes = restype, list(argtypes)
        return fn

    _call_unchecked = _proto("wasmtime_func_call_unchecked", _vp, _vp, _vp, _vp, _sz, _vp)
    _caller_context = _proto("wasmtime_caller_context", _vp, _vp)
    _memory_data = _proto("wasmtime_memory_data", _vp, _vp, _vp)
    _memory_data_size = _proto("wasmtime_memory_data_size", _sz, _vp, _vp)
    _define_unchecked = _proto("wasmtime_linker_define_func_unchecked", _vp, _vp, ctypes.c_char_p, _sz,
                               ctypes.c_char_p, _sz, _vp, _vp, _vp, _vp)
    _IMPORT_CALLBACK = ctypes.CFUNCTYPE(_sz, _vp, _vp, _vp, _sz)
    _ERROR_PTR = ctypes.POINTER(_wffi.wasmtime_error_t)
    _TRAP_PTR = ctypes.POINTER(_wffi.wasm_trap_t)
    AVAILABLE = ctypes.sizeof(_wffi.wasmtime_val_raw_t) == 16 and hasattr(_wfunc, "LAST_EXCEPTION")
except (ImportError, AttributeError):  # pragma: no cover - depends on the wasmtime build
    AVAILABLE = False

Ctx = Any  # int (context address) on the fast path, else a wasmtime Store / Caller
I32Fn = Callable[..., int]
HostFn = Callable[..., Any]  # handler(ctx, *i32 args) -> int | None

_SLOT = 16  # bytes per wasmtime_val_raw_t


def i32_signature(ty: object) -> tuple[int, int] | None:
    """(params, results) of an i32-only function type with at most one result, else None."""
    if not isinstance(ty, wasmtime.FuncType):
        return None
    params, results = ty.params, ty.results
    if len(results) > 1 or any(str(t) != "i32" for t in [*params, *results]):
        return None
    return len(params), len(results)


def context_of(store: wasmtime.Store | wasmtime.Caller) -> Ctx:
    """The context to pass to the functions of this module."""
    if not AVAILABLE:
        return store
    return ctypes.cast(store._context(), ctypes.c_void_p).value


def _raise_failure(error: int | None, trap: int | None) -> None:
    """Raise what `Func.__call__` would: a pending Python exception of a host import first,
    else the WasmtimeError / Trap."""
    failure: Exception = (wasmtime.WasmtimeError._from_ptr(ctypes.cast(error, _ERROR_PTR)) if error
                          else wasmtime.Trap._from_ptr(ctypes.cast(trap, _TRAP_PTR)))
    pending = _wfunc.LAST_EXCEPTION
    if pending is not None:
        _wfunc.LAST_EXCEPTION = None
        raise pending
    raise failure


def i32_caller(func: wasmtime.Func, sig: tuple[int, int] | None) -> I32Fn:
    """`(ctx, *i32 args) -> int | None` for an exported function whose signature
    `i32_signature` computed. Arguments are unsigned 32-bit values (addresses, lengths,
    ids); results are returned unsigned. Not reentrant per function (the argument buffer
    is shared), which the OPA ABI never needs. The callers for up to 2 arguments are
    specialised: they run inside every host builtin call."""
    if not AVAILABLE or sig is None:
        return func
    nparams, nresults = sig
    size = max(nparams, nresults, 1)
    buf = (ctypes.c_ubyte * (size * _SLOT))()
    slots = [ctypes.c_uint32.from_buffer(buf, i * _SLOT) for i in range(size)]
    trap = ctypes.c_void_p()
    func_addr, buf_addr, trap_addr = ctypes.addressof(func._func), ctypes.addressof(buf), ctypes.addressof(trap)
    keep = (func, buf, trap, slots)
    out = slots[0]

    def finish(ctx: int, _keep: tuple[Any, ...] = keep) -> int | None:  # _keep: func must outlive its address
        trap.value = None
        error = _call_unchecked(ctx, func_addr, buf_addr, size, trap_addr)
        if error or trap.value:
            _raise_failure(error, trap.value)
        return out.value if nresults else None

    if nparams == 0:
        def call0(ctx: int) -> int | None:
            return finish(ctx)
        return call0
    a0 = slots[0]
    if nparams == 1:
        def call1(ctx: int, x: int) -> int | None:
            a0.value = x
            return finish(ctx)
        return call1
    a1 = slots[1]
    if nparams == 2:
        def call2(ctx: int, x: int, y: int) -> int | None:
            a0.value, a1.value = x, y
            return finish(ctx)
        return call2

    def call(ctx: int, *args: int) -> int | None:
        if len(args) != nparams:
            raise TypeError(f"expected {nparams} arguments, got {len(args)}")
        for slot, value in zip(slots, args, strict=False):
            slot.value = value
        return finish(ctx)

    return call


def memory_ref(memory: wasmtime.Memory) -> Any:
    """The handle `memory_span` takes for this memory."""
    return ctypes.addressof(memory._memory) if AVAILABLE else memory


def memory_span(ctx: Ctx, ref: Any) -> tuple[int, int]:
    """(address of byte 0, size in bytes) of a linear memory now (`ref`: `memory_ref`);
    both change when it grows."""
    if not AVAILABLE:
        return ctypes.addressof(ref.data_ptr(ctx).contents), ref.data_len(ctx)
    return _memory_data(ctx, ref) or 0, _memory_data_size(ctx, ref)


def define_import(linker: wasmtime.Linker, module: str, name: str, nparams: int, has_result: bool,
                  handler: HostFn, store_ctx: Ctx = None) -> Any:
    """Define `module.name` (i32 params, one i32 result or none) as `handler(ctx, *args)`,
    for use by the one store whose context is `store_ctx`. Returns an object the caller
    must keep alive as long as that store may call it."""
    i32 = wasmtime.ValType.i32()
    ty = wasmtime.FuncType([i32] * nparams, [i32] if has_result else [])
    if not AVAILABLE:
        linker.define_func(module, name, ty, handler, access_caller=True)
        return None
    unpack = struct.Struct("<" + f"I{_SLOT - 4}x" * nparams).unpack
    string_at, set_result = ctypes.string_at, ctypes.c_uint32.from_address
    # The caller's context is the store's own context pointer in wasmtime's C API; once
    # that is seen to hold, the per-call wasmtime_caller_context lookup is skipped.
    known = [None]

    def trampoline(_env: int | None, caller: int, raw: int, _n: int) -> int:
        try:
            ctx = known[0]
            if ctx is None:
                ctx = _caller_context(caller)
                if ctx == store_ctx:
                    known[0] = ctx
            out = handler(ctx, *unpack(string_at(raw, nparams * _SLOT)))
            if has_result:
                set_result(raw).value = out
            return 0
        except BaseException as e:  # noqa: BLE001 - re-raised by the caller of the wasm function
            _wfunc.LAST_EXCEPTION = e
            return ctypes.cast(wasmtime.Trap("python exception")._consume(), ctypes.c_void_p).value or 0

    callback = _IMPORT_CALLBACK(trampoline)
    mod, nm = module.encode(), name.encode()
    error = _define_unchecked(ctypes.cast(linker.ptr(), ctypes.c_void_p).value, mod, len(mod), nm, len(nm),
                              ctypes.cast(ty.ptr(), ctypes.c_void_p).value,
                              ctypes.cast(callback, ctypes.c_void_p).value, None, None)
    if error:
        raise wasmtime.WasmtimeError._from_ptr(ctypes.cast(error, _ERROR_PTR))
    return (callback, ty)
