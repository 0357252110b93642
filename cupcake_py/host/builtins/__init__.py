"""Host builtins: every OPA builtin the C runtime does not implement natively.

Contract (docs/architecture.md section 4):

* ``REGISTRY`` maps a builtin name to a :class:`Builtin` (``name``, ``fn``, ``void``).
* ``lookup(name)`` returns the builtin or ``None``.
* ``fn(ctx, *args)`` takes and returns Python Rego values (section 1). Raising
  :class:`BuiltinError` means *undefined* (OPA's WASM semantics); in strict mode the
  host reports ``eval_builtin_error`` with the error's message.
* :class:`BuiltinContext` is created once per evaluation.
"""

from __future__ import annotations

import random
import sys
import uuid as _uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from time import time_ns as _time_ns
from typing import Any

from cupcake_py.host.builtins._errors import BuiltinError

__all__ = ["REGISTRY", "Builtin", "BuiltinContext", "BuiltinError", "builtin", "lookup", "call"]


def _stderr_print(msg: str) -> None:
    sys.stderr.write(msg + "\n")


@dataclass
class BuiltinContext:
    """Per-evaluation state shared by all builtin calls of one evaluation."""

    now_ns: int = field(default_factory=_time_ns)
    seed: int | None = None
    print_hook: Callable[[str], None] = _stderr_print
    strict: bool = False
    allow_net: bool = False
    net_timeout_s: float = 5.0
    eval_id: str = field(default_factory=lambda: _uuid.uuid4().hex)
    env: Mapping[str, str] | None = None
    """Environment exposed by ``opa.runtime()``; ``None`` = no ``env`` key (default)."""
    traces: list[str] = field(default_factory=list)
    rand: random.Random = field(init=False)
    cache: dict[Any, Any] = field(default_factory=dict)
    """Per-evaluation memo (``rand.intn`` results, ``http.send`` responses)."""

    def __post_init__(self) -> None:
        self.rand = random.Random(self.seed if self.seed is not None else self.now_ns)


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    fn: Callable[..., Any]
    void: bool = False


REGISTRY: dict[str, Builtin] = {}


def builtin(name: str, *, void: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn(ctx, *args)`` as the host implementation of ``name``."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in REGISTRY:
            raise RuntimeError(f"builtin {name} registered twice")
        REGISTRY[name] = Builtin(name, fn, void)
        return fn

    return deco


def lookup(name: str) -> Builtin | None:
    return REGISTRY.get(name)


def call(ctx: BuiltinContext, name: str, *args: Any) -> Any:
    """Convenience: call a registered builtin by name (raises KeyError when unknown)."""
    return REGISTRY[name].fn(ctx, *args)


# Importing the family modules fills REGISTRY.
from cupcake_py.host.builtins import (  # noqa: E402,F401
    aws_sign,
    casts,
    crypto,
    encoding,
    glob,
    gotemplate,
    graph,
    graphql,
    http,
    json_patch,
    jsonschema_,
    jwt,
    net,
    objects_arrays,
    opa_runtime,
    print_trace,
    rand,
    regex,
    rego_module,
    semver,
    sprintf,
    strings,
    template,
    time,
    units,
    uri,
    uuid,
    x509,
)
