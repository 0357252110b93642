"""Calls between Python and i32-only wasm functions, on wasmtime's raw ("unchecked") C API.

Every OPA ABI export and import takes and returns i32 only, so:

* exports are called through `wasmtime_func_call_unchecked` with a preallocated raw
  argument buffer (`i32_caller`);
* imports are defined with `wasmtime_linker_define_func_unchecked` and receive the raw
  argument buffer (`define_import`);
* linear memory is addressed through `wasmtime_memory_data` (`memory_span`).

All of them take a *context*: the address of the store's (or, inside a host call, the
caller's) `wasmtime_context_t`. A Python exception raised by a host import becomes a trap
inside wasm and is re-raised, unchanged, by the `i32_caller` call that entered wasm; the
`Pending` box of the store carries it across.
"""

from __future__ import annotations

import ctypes
import struct

from cupcake_py.host import capi

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    I32Fn = Callable[..., Any]
    HostFn = Callable[..., Any]  # handler(ctx, *i32 args) -> int | None

Ctx = int  # a wasmtime_context_t address

_SLOT = capi.RAW_SLOT
_call_unchecked, _memory_data, _memory_data_size = (capi.func_call_unchecked, capi.memory_data,
                                                    capi.memory_data_size)


class Pending:
    """The Python exception a host import raised during the current call into wasm."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: BaseException | None = None


def i32_signature(ty: capi.ExternType) -> tuple[int, int] | None:
    """(params, results) of an i32-only function type with at most one result, else None."""
    if ty.kind != "func" or len(ty.results) > 1 or any(t != "i32" for t in (*ty.params, *ty.results)):
        return None
    return len(ty.params), len(ty.results)


def _raise_failure(error: int | None, trap: int | None, pending: Pending) -> None:
    """Raise the pending Python exception of a host import if there is one, else wasmtime's
    error / trap (freed either way)."""
    failure = capi.take_error(error) if error else capi.take_trap(trap or 0)
    if pending.error is not None:
        exc, pending.error = pending.error, None
        raise exc
    raise failure


_SLOT_BUFFERS: dict[int, type[ctypes.Array[ctypes.c_ubyte]]] = {}  # by slot count (a handful of signatures)


def _slot_buffer(slots: int) -> type[ctypes.Array[ctypes.c_ubyte]]:
    """The buffer type of `slots` argument slots, made once (a ctypes type made per call would be
    freed only by the cyclic GC)."""
    known = _SLOT_BUFFERS.get(slots)
    if known is None:
        known = _SLOT_BUFFERS[slots] = ctypes.c_ubyte * (slots * _SLOT)
    return known


def i32_caller(func: capi.Extern, sig: tuple[int, int], pending: Pending) -> I32Fn:
    """`(ctx, *i32 args) -> int | None` for an exported function with signature `sig`
    (`i32_signature`). Arguments are unsigned 32-bit values (addresses, lengths, ids);
    results are returned unsigned. Not reentrant per function (the argument buffer is
    shared), which the OPA ABI never needs. The callers for up to 2 arguments are
    specialised: they run inside every host builtin call; longer argument lists (opa_eval's
    7) are packed into the buffer by one struct call."""
    nparams, nresults = sig
    size = max(nparams, nresults, 1)
    buf = _slot_buffer(size)()
    slots = [ctypes.c_uint32.from_buffer(buf, i * _SLOT) for i in range(size)]
    trap = ctypes.c_void_p()
    func_addr, buf_addr, trap_addr = func.item, ctypes.addressof(buf), ctypes.addressof(trap)
    keep = (func, buf, trap, slots)
    out = slots[0]

    def finish(ctx: int, _keep: tuple[Any, ...] = keep) -> int | None:  # _keep: func must outlive its address
        trap.value = None
        error = _call_unchecked(ctx, func_addr, buf_addr, size, trap_addr)
        if error or trap.value:
            _raise_failure(error, trap.value, pending)
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

    pack_into = struct.Struct("<" + f"I{_SLOT - 4}x" * nparams).pack_into  # one C call fills every slot

    def call(ctx: int, *args: int) -> int | None:
        if len(args) != nparams:
            raise TypeError(f"expected {nparams} arguments, got {len(args)}")
        try:
            pack_into(buf, 0, *args)
        except struct.error:  # a negative or wider value: stored modulo 2**32 like the 1- and 2-argument callers
            for slot, value in zip(slots, args, strict=False):
                slot.value = value
        return finish(ctx)

    return call


def memory_span(ctx: Ctx, ref: int) -> tuple[int, int]:
    """(address of byte 0, size in bytes) of a linear memory now (`ref`: its
    wasmtime_memory_t address); both change when it grows."""
    return _memory_data(ctx, ref) or 0, _memory_data_size(ctx, ref)


def define_import(linker: capi.Linker, module: str, name: str, nparams: int, has_result: bool,
                  handler: HostFn, store_ctx: Ctx, pending: Pending) -> Any:
    """Define `module.name` (i32 params, one i32 result or none) as `handler(ctx, *args)`,
    for use by the one store whose context is `store_ctx`. Returns the callback, which
    the caller must keep alive as long as that store may call it."""
    unpack = struct.Struct("<" + f"I{_SLOT - 4}x" * nparams).unpack
    string_at, set_result = ctypes.string_at, ctypes.c_uint32.from_address
    caller_context, new_trap = capi.caller_context, capi.new_trap
    # The caller's context is the store's own context pointer in wasmtime's C API; once
    # that is seen to hold, the per-call wasmtime_caller_context lookup is skipped.
    known: list[int | None] = [None]

    def trampoline(_env: int | None, caller: int, raw: int, _n: int) -> int:
        try:
            ctx = known[0]
            if ctx is None:
                ctx = caller_context(caller)
                if ctx == store_ctx:
                    known[0] = ctx
            out = handler(ctx, *unpack(string_at(raw, nparams * _SLOT)))
            if has_result:
                set_result(raw).value = out
            return 0
        except BaseException as e:  # noqa: BLE001 - re-raised by the i32_caller that entered wasm
            pending.error = e
            return new_trap(b"host function raised a Python exception")

    callback = capi.HOST_CALLBACK(trampoline)
    linker.define_unchecked(module, name, nparams, 1 if has_result else 0, callback)
    return callback
