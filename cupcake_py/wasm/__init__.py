"""The WASM backend: IR → one WebAssembly module following OPA's WASM ABI 1.3.

Public API: ``compile_policy(policy) -> bytes`` and ``CodegenError``.
"""

from __future__ import annotations

from cupcake_py.wasm.errors import CodegenError, WasmFormatError

TYPE_CHECKING = False  # the host imports wasm.abi on the `cupcake eval` path: no typing
if TYPE_CHECKING:
    from cupcake_py import ir

__all__ = ["CodegenError", "WasmFormatError", "compile_policy"]


CODEGEN_RECURSION = 30_000


def compile_policy(policy: ir.Policy, *, debug_names: bool = False) -> bytes:
    """Compile a planned policy into a module (bytes) linked with the C runtime.

    Deterministic: the same IR and runtime give byte-identical output. Raises
    ``CodegenError`` when the IR cannot be compiled. ``debug_names`` adds a "name"
    section so traps and backtraces show function names."""
    from cupcake_py.core.deep_stack import recursion_limit
    from cupcake_py.wasm.linker import compile_with_runtime
    from cupcake_py.wasm.runtime import load_runtime_bytes

    runtime = load_runtime_bytes()
    # The generator recurses per nested block (`every` in `every` ..., as deep as the parser's
    # MAX_NESTING allows); Python-to-Python calls only, so a higher limit needs no other stack.
    with recursion_limit(CODEGEN_RECURSION):
        return compile_with_runtime(policy, runtime, debug_names)
