"""Host builtins: every OPA builtin the C runtime does not implement natively.

Contract (docs/architecture.md section 4):

* ``lookup(name)`` returns the :class:`Builtin` (``name``, ``fn``, ``void``) or ``None``.
  It imports only the family module that defines ``name`` (the generated table in
  ``cupcake_py/host/builtin_index.py``), so a policy calling ``sprintf`` never pays for x509, jwt or graphql.
* ``REGISTRY`` is a read-only mapping of every builtin; iterating it imports all families.
* ``fn(ctx, *args)`` takes and returns Python Rego values (section 1). Raising
  :class:`BuiltinError` means *undefined* (OPA's WASM semantics); in strict mode the
  host reports ``eval_builtin_error`` with the error's message.
* :class:`BuiltinContext` is created once per evaluation.

A new builtin or family: register it with ``@builtin("name")`` in a module listed in
``FAMILIES``, then regenerate the table: ``python -m cupcake_py.host.builtins``
(tests/host/test_builtin_index.py fails until the table matches the decorators).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from time import time_ns as _time_ns

from cupcake_py.host.builtin_index import FAMILY_OF

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from cupcake_py.host.builtins._errors import BuiltinError

__all__ = ["FAMILIES", "REGISTRY", "Builtin", "BuiltinContext", "BuiltinError", "builtin", "call", "known",
           "load_all", "lookup"]

# Modules (under cupcake_py.host.builtins) whose import registers builtins.
FAMILIES: tuple[str, ...] = (
    "aws_sign", "casts", "crypto", "encoding", "glob", "gotemplate", "graph", "graphql", "http",
    "json_patch", "jsonschema_", "jwt", "net", "objects_arrays", "opa_runtime", "print_trace", "rand",
    "regex", "rego_module", "semver", "sprintf", "strings", "template", "time", "units", "uri", "uuid",
    "x509",
)


def __getattr__(name: str) -> Any:
    """`BuiltinError`, imported when first asked for (with the first builtin called: every family
    imports it): its module reads `decimal` and the value helpers, which an evaluation that calls
    no host builtin never needs (0.8 ms of a cold `cupcake eval`)."""
    if name == "BuiltinError":
        from cupcake_py.host.builtins._errors import BuiltinError

        return BuiltinError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _stderr_print(msg: str) -> None:
    sys.stderr.write(msg + "\n")


def _eval_id() -> str:
    return os.urandom(16).hex()


class BuiltinContext:
    """Per-evaluation state shared by all builtin calls of one evaluation: ``now_ns`` (one
    clock reading), ``rand`` (seeded by ``seed``, else by ``now_ns``), ``print_hook``,
    ``strict``, ``allow_net`` / ``net_timeout_s``, ``eval_id``, ``env`` (what
    ``opa.runtime()`` exposes; ``None`` = no ``env`` key), ``traces``, and ``cache`` (a
    per-evaluation memo: ``rand.intn`` results, ``http.send`` responses). A plain class,
    not a dataclass: it is on the start-up path of every evaluation that calls a builtin."""

    def __init__(self, now_ns: int | None = None, seed: int | None = None,
                 print_hook: Callable[[str], None] = _stderr_print, strict: bool = False, allow_net: bool = False,
                 net_timeout_s: float = 5.0, eval_id: str | None = None, env: Mapping[str, str] | None = None,
                 traces: list[str] | None = None, cache: dict[Any, Any] | None = None) -> None:
        self.now_ns: int = _time_ns() if now_ns is None else now_ns
        self.seed = seed
        self.print_hook = print_hook
        self.strict = strict
        self.allow_net = allow_net
        self.net_timeout_s = net_timeout_s
        self.eval_id: str = _eval_id() if eval_id is None else eval_id
        self.env = env
        self.traces: list[str] = [] if traces is None else traces
        self.cache: dict[Any, Any] = {} if cache is None else cache
        self._rand: Any = None

    @property
    def rand(self) -> Any:
        """A `random.Random` seeded by `seed`, else by `now_ns` (made on first use)."""
        if self._rand is None:
            import random

            self._rand = random.Random(self.seed if self.seed is not None else self.now_ns)
        return self._rand

    def __repr__(self) -> str:
        return f"BuiltinContext(now_ns={self.now_ns}, seed={self.seed}, strict={self.strict}, " \
               f"allow_net={self.allow_net}, eval_id={self.eval_id!r})"


class Builtin:
    """A registered host builtin: `fn(ctx, *args)`; `void` builtins (print) return nothing."""

    __slots__ = ("name", "fn", "void")

    def __init__(self, name: str, fn: Callable[..., Any], void: bool = False) -> None:
        self.name, self.fn, self.void = name, fn, void

    def __repr__(self) -> str:
        return f"Builtin({self.name!r}, {self.fn!r}, void={self.void})"


_LOADED: dict[str, Builtin] = {}  # registered so far (families imported so far)
_ORIGIN: dict[str, str] = {}  # name -> family module that registered it
_PACKAGE = __name__ + "."


def builtin(name: str, *, void: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn(ctx, *args)`` as the host implementation of ``name`` (call it at the
    top level of a family module)."""
    module = sys._getframe(1).f_globals.get("__name__", "?")

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in _LOADED:
            raise RuntimeError(f"builtin {name} registered twice")
        _LOADED[name] = Builtin(name, fn, void)
        _ORIGIN[name] = module.removeprefix(_PACKAGE)
        return fn

    return deco


def _import_family(family: str) -> None:
    __import__(_PACKAGE + family)


def load_all() -> dict[str, str]:
    """Import every family; returns name -> family of every registered builtin."""
    for family in FAMILIES:
        _import_family(family)
    return dict(_ORIGIN)


def known(name: str) -> bool:
    """Whether a host implementation of ``name`` exists (imports nothing)."""
    return name in _LOADED or name in FAMILY_OF


def lookup(name: str) -> Builtin | None:
    """The builtin named ``name`` (importing its family on first use), or None."""
    found = _LOADED.get(name)
    if found is None:
        family = FAMILY_OF.get(name)
        if family is None:
            return None
        _import_family(family)
        found = _LOADED.get(name)
        if found is None:  # the generated table is stale: still answer correctly
            load_all()
            found = _LOADED.get(name)
    return found


class _Registry(Mapping[str, Builtin]):
    """Every host builtin by name; lookups import one family, iteration imports all."""

    def __getitem__(self, name: str) -> Builtin:
        found = lookup(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and known(name)

    def __iter__(self) -> Iterator[str]:
        load_all()
        return iter(dict(_LOADED))

    def __len__(self) -> int:
        load_all()
        return len(_LOADED)


REGISTRY: Mapping[str, Builtin] = _Registry()


def call(ctx: BuiltinContext, name: str, *args: Any) -> Any:
    """Convenience: call a registered builtin by name (raises KeyError when unknown)."""
    return REGISTRY[name].fn(ctx, *args)


def _index_source(origin: Mapping[str, str]) -> str:
    lines = [
        '"""Generated by `python -m cupcake_py.host.builtins`: host builtin name -> family module',
        '(under cupcake_py.host.builtins) whose import registers it. Do not edit by hand."""',
        "",
        "FAMILY_OF: dict[str, str] = {",
        *(f"    {name!r}: {origin[name]!r}," for name in sorted(origin)),
        "}",
        "",
    ]
    return "\n".join(lines).replace("'", '"')
