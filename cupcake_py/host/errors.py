"""Typed errors of the wasmtime host. Every wasmtime error or trap (`capi.WasmError`,
`capi.WasmTrap`) that reaches the host API is turned into one of these, so a bad module never
crashes the caller."""

from __future__ import annotations

from cupcake_py.core.errors import CupcakeError


class HostError(CupcakeError):
    """Base class of every host failure."""


class ABIError(HostError):
    """The module does not follow OPA's WASM ABI (missing export, bad version, bad value...)."""


class ModuleError(HostError):
    """The bytes are not a valid WebAssembly module (or cannot be compiled)."""


class MissingBuiltinError(HostError):
    """The module calls host builtins that the registry does not implement (reported at load)."""

    def __init__(self, names: list[str]) -> None:
        self.names = sorted(names)
        super().__init__("module calls builtins the host does not implement: " + ", ".join(self.names))


class InputError(HostError):
    """Input or data the module cannot take (not valid JSON, rejected by the module's parser)."""


class UnknownEntrypointError(HostError):
    def __init__(self, name: str | int, known: list[str]) -> None:
        self.name = name
        super().__init__(f"unknown entrypoint {name!r}; the module has: {', '.join(known) or '(none)'}")


class EvalError(HostError):
    """An evaluation failed (base of the runtime failures below)."""


_LOCATED = r"^(?P<file>[^:\n]*):(?P<row>\d+):(?P<col>\d+): (?P<msg>.*)$"  # compiled on first use (re caches)


class AbortError(EvalError):
    """The module called `opa_abort`. Runtime errors carry "file:row:col: msg", e.g.
    "module.rego:6:1: var assignment conflict"; `detail` is the part after the location."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        import re  # an abort is rare: not on every eval's import path

        m = re.match(_LOCATED, message, re.S)
        self.file: str | None = m["file"] if m else None
        self.row: int | None = int(m["row"]) if m else None
        self.col: int | None = int(m["col"]) if m else None
        self.detail: str = m["msg"] if m else message

    @property
    def is_conflict(self) -> bool:
        return self.detail in ("var assignment conflict", "object insert conflict")


class DeadlineExceeded(EvalError):
    """The evaluation ran past its deadline (wasmtime epoch interruption)."""


class MemoryLimitExceeded(EvalError):
    """Linear memory would grow past the configured cap."""


class TrapError(EvalError):
    """Any other WebAssembly trap (unreachable, out-of-bounds access, stack overflow...)."""


# OPA's error codes of a failing builtin (topdown): a bad operand type, any other failure.
BUILTIN_ERROR_CODES = ("eval_type_error", "eval_builtin_error")


class BuiltinEvalError(EvalError):
    """A builtin failed: a host builtin in strict mode for BuiltinError, always for unexpected
    exceptions; a native (runtime) builtin in strict mode. `code` is OPA's error code."""

    def __init__(self, name: str, message: str, code: str = "eval_builtin_error") -> None:
        self.builtin = name
        self.code = code
        # OPA's builtin messages already start with the name (`object.subset: ...`)
        super().__init__(message if message.startswith(f"{name}: ") else f"{name}: {message}")
