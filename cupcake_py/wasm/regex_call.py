"""Code generation hook: ``regex.match`` / ``re_match`` with a constant pattern runs natively.

In: a builtin call statement whose pattern operand is a string constant. When
``regex_prog.compile_pattern`` accepts the pattern, its program goes into the data segment
(4-aligned, one copy per distinct pattern) and the call becomes::

    r = opa_regex_vm_match(program, subject)      ;; runtime.wasm, regex_vm.c
    if r == 0: r = <the host call the code had before>

so the native matcher answers for string subjects in valid UTF-8 and everything else
(other types: the host's type error; invalid UTF-8) still reaches the host exactly as
before. Any other call (non-constant pattern, pattern outside the subset, other builtins)
is not touched: ``native_program`` returns None and the caller emits the host call.
"""

from __future__ import annotations

from collections.abc import Sequence

from cupcake_py import ir
from cupcake_py.wasm.native_first import native_then_host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.wasm.codegen import _Codegen, _Fn

MATCH_BUILTINS = frozenset({"regex.match", "re_match"})
RUNTIME_MATCH = "opa_regex_vm_match"
PROGRAM_ALIGNMENT = 4


def native_program(func: str, args: Sequence[ir.Operand], strings: Sequence[str]) -> bytes | None:
    """The matcher program for this call, or None when it stays a host call."""
    if func not in MATCH_BUILTINS or len(args) != 2:
        return None
    pattern = args[0]
    if not isinstance(pattern, ir.StringIndex) or not 0 <= pattern.value < len(strings):
        return None
    from cupcake_py.wasm.regex_prog import compile_pattern  # (only a policy that matches regexes loads it)

    return compile_pattern(strings[pattern.value])


def emit_match(gen: _Codegen, fn: _Fn, s: ir.CallStmt, program: bytes) -> None:
    """Leave the call's result on the stack: native answer, else the host call's."""

    def push_args() -> None:
        fn.asm.i32(gen.data.shared_blob(program, PROGRAM_ALIGNMENT))
        gen.operand(fn, s.args[1])

    scratch = fn.temp()
    native_then_host(fn.asm, push_args, "rt:" + RUNTIME_MATCH, lambda: gen.host_call(fn, s, True), scratch)
    fn.release(scratch)
