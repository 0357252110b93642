"""Calls of host builtins whose common cases the runtime handles natively (``opa_bi_try_*``).

In: the code generator's assembler for the current function, a callback pushing the call's
arguments, the runtime symbol of the native attempt, a callback emitting the ordinary host
call (which leaves the host's result on the stack), and a scratch local.
Out: code leaving the builtin's result on the stack: the native result when it is not 0,
else the host's answer. 0 from ``opa_bi_try_*`` means "not handled here" (opa.h, NATIVE
BUILTINS WITH A HOST FALLBACK), never "undefined": the host then decides, errors included,
so a case the runtime cannot reproduce exactly never fails differently from the host.
The emitted code depends only on its inputs (deterministic).
"""

from __future__ import annotations

from collections.abc import Callable

from cupcake_py.wasm.asm import Asm

I32_EQZ = 0x45


def native_then_host(a: Asm, push_args: Callable[[], None], native: str, host_call: Callable[[], None],
                     scratch: int) -> None:
    """``r = native(args); if r == 0 { r = host(args) }; push r``."""
    push_args()
    a.call(native)
    a.tee(scratch)
    a.op(I32_EQZ)
    a.if_()
    host_call()
    a.set(scratch)
    a.end()
    a.get(scratch)
