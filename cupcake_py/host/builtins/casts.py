"""Deprecated cast_* builtins (OPA keeps them for compatibility)."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import type_err
from cupcake_py.host.builtins._values import FrozenObject, freeze, sorted_values, thaw


@builtin("cast_array")
def cast_array(ctx: BuiltinContext, x: Any) -> list[Any]:
    if isinstance(x, list | tuple):
        return list(x)
    if isinstance(x, frozenset):
        return [thaw(v) for v in sorted_values(x)]
    raise type_err("cast_array", 1, x, "array", "set")


@builtin("cast_set")
def cast_set(ctx: BuiltinContext, x: Any) -> frozenset[Any]:
    if isinstance(x, frozenset):
        return x
    if isinstance(x, list | tuple):
        return frozenset(freeze(v) for v in x)
    raise type_err("cast_set", 1, x, "array", "set")


def _identity(name: str, accept: type | tuple[type, ...], want: str) -> None:
    def fn(ctx: BuiltinContext, x: Any) -> Any:
        if isinstance(x, accept) and (want == "boolean" or not isinstance(x, bool)):
            return thaw(x) if isinstance(x, FrozenObject) else x
        raise type_err(name, 1, x, want)

    builtin(name)(fn)


_identity("cast_string", str, "string")
_identity("cast_boolean", bool, "boolean")
_identity("cast_null", type(None), "null")
_identity("cast_object", (dict, FrozenObject), "object")
