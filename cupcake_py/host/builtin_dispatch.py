"""Dispatch of `env.opa_builtin0..4(id, ctx, args...)` to Python host builtins.

Builtins come from the host builtin library (`cupcake_py.host.builtins`: `lookup(name)`
returns an object with `fn(ctx, *args)` and `void`), optionally overridden or extended by
a mapping `name -> fn(ctx, *args)` given by the caller (tests, the compliance runner's
`test.sleep`). Resolution happens at load time, so a missing builtin is reported before
any evaluation (MissingBuiltinError).

Per call: each argument is dumped by the module (`opa_value_dump`, Rego literal syntax,
so sets survive) and parsed with `values.parse_rego`; the result is written back with
`values.dump_rego` → `opa_malloc` + copy → `opa_value_parse`. `BuiltinError` means
undefined (0), or a BuiltinEvalError in strict mode; any other exception is a bug in the
builtin and always fails the evaluation. One BuiltinContext is created per evaluation,
on the first builtin call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cupcake_py import values
from cupcake_py.host.errors import ABIError, BuiltinEvalError, MissingBuiltinError

log = logging.getLogger(__name__)

BuiltinFn = Callable[..., Any]  # fn(ctx, *args) -> value


@dataclass(frozen=True)
class ResolvedBuiltin:
    name: str
    fn: BuiltinFn


def _library() -> tuple[Callable[[str], Any], type[Exception], Callable[..., Any]]:
    """(lookup, BuiltinError, BuiltinContext) of the host builtin library. Imported lazily:
    loading every builtin family costs start-up time that builtin-free policies skip."""
    from cupcake_py.host import builtins as lib

    return lib.lookup, lib.BuiltinError, lib.BuiltinContext


def builtin_error_type() -> type[Exception]:
    return _library()[1]


def resolve(names: Iterable[str], extra: Mapping[str, BuiltinFn] | None = None) -> dict[str, ResolvedBuiltin]:
    """Implementations for `names`; MissingBuiltinError lists every name without one."""
    names = list(names)
    if not names:
        return {}
    extra = extra or {}
    lookup = _library()[0]
    found: dict[str, ResolvedBuiltin] = {}
    missing: list[str] = []
    for name in names:
        if name in extra:
            found[name] = ResolvedBuiltin(name, extra[name])
        elif (entry := lookup(name)) is not None:
            found[name] = ResolvedBuiltin(name, entry.fn)
        else:
            missing.append(name)
    if missing:
        raise MissingBuiltinError(missing)
    return found


def available(names: Iterable[str], extra: Mapping[str, BuiltinFn] | None = None) -> set[str]:
    """The subset of `names` that has an implementation."""
    names = list(names)
    if not names:
        return set()
    lookup = _library()[0]
    return {n for n in names if n in (extra or {}) or lookup(n) is not None}


class ModuleIO:
    """What the dispatcher needs from a running instance (all take the wasmtime caller)."""

    def __init__(
        self,
        value_dump: Callable[[Any, int], int],
        value_parse: Callable[[Any, int, int], int],
        malloc: Callable[[Any, int], int],
        read_cstr: Callable[[Any, int], bytes],
        write: Callable[[Any, int, bytes], None],
    ) -> None:
        self.value_dump = value_dump
        self.value_parse = value_parse
        self.malloc = malloc
        self.read_cstr = read_cstr
        self.write = write


class BuiltinDispatcher:
    def __init__(
        self,
        ids: Mapping[int, str],
        impls: Mapping[str, ResolvedBuiltin],
        io: ModuleIO | None,
        strict: bool = False,
        context_factory: Callable[[], Any] | None = None,
        allow_net: bool = False,
    ) -> None:
        self._by_id = {i: impls[name] for i, name in ids.items()}
        self._io = io
        self._strict = strict
        if self._by_id:
            _, self._error_type, context_cls = _library()
            self._new_context = context_factory or (lambda: context_cls(strict=strict, allow_net=allow_net))
        else:
            self._error_type = Exception
            self._new_context = context_factory or (lambda: None)
        self._ctx: Any = None

    def begin_eval(self) -> None:
        """Start a new evaluation: the next builtin call gets a fresh BuiltinContext."""
        self._ctx = None

    @property
    def context(self) -> Any:
        """The current evaluation's BuiltinContext (None before the first builtin call)."""
        return self._ctx

    def call(self, caller: Any, bid: int, arg_addrs: tuple[int, ...]) -> int:
        builtin = self._by_id.get(bid)
        if builtin is None:
            raise ABIError(f"module called unknown host builtin id {bid}")
        io = self._io
        assert io is not None
        args = []
        for addr in arg_addrs:
            if addr == 0:
                raise ABIError(f"{builtin.name}: module passed an undefined argument")
            text = io.read_cstr(caller, io.value_dump(caller, addr))
            try:
                args.append(values.parse_rego(text))
            except values.ValueParseError as e:
                raise ABIError(f"{builtin.name}: unreadable argument {text[:80]!r}: {e}") from None
        if self._ctx is None:
            self._ctx = self._new_context()
        try:
            result = builtin.fn(self._ctx, *args)
        except self._error_type as e:
            if self._strict:
                raise BuiltinEvalError(builtin.name, str(e)) from None
            log.debug("builtin %s undefined: %s", builtin.name, e)
            return 0
        except Exception as e:
            log.debug("builtin %s crashed", builtin.name, exc_info=True)
            raise BuiltinEvalError(builtin.name, f"internal error: {type(e).__name__}: {e}") from e
        try:
            text = values.dump_rego(result).encode("utf-8")
        except (TypeError, ValueError) as e:
            raise BuiltinEvalError(builtin.name, f"returned a non-Rego value: {e}") from None
        addr = io.malloc(caller, len(text))
        io.write(caller, addr, text)
        value = io.value_parse(caller, addr, len(text))
        if value == 0:
            raise ABIError(f"{builtin.name}: opa_value_parse rejected the builtin's result {text[:80]!r}")
        return value
