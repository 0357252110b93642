"""Error types of the WASM backend."""

from __future__ import annotations

from cupcake_py.core.errors import CupcakeError


class CodegenError(CupcakeError):
    """The IR cannot be compiled to a module (with file:row:col when the IR has a location)."""


class WasmFormatError(CupcakeError):
    """A WebAssembly binary is malformed or uses a feature the decoder does not know."""
