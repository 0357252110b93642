"""object.subset, array.flatten, numbers.range_step."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_array, want_int
from cupcake_py.host.builtins._values import FrozenObject, freeze, type_name


def _is_obj(v: Any) -> bool:
    return isinstance(v, dict | FrozenObject)


def _is_arr(v: Any) -> bool:
    return isinstance(v, list | tuple)


def _subarray(sup: list[Any], sub: list[Any]) -> bool:
    if not sub:
        return True
    n = len(sub)
    return any(sup[i : i + n] == sub for i in range(len(sup) - n + 1))


def _subset(sup: Any, sub: Any) -> bool:
    if _is_obj(sup) and _is_obj(sub):
        sup_d = dict(sup.items())
        for k, v in sub.items():
            if k not in sup_d or not _subset(sup_d[k], v):
                return False
        return True
    if isinstance(sup, frozenset) and isinstance(sub, frozenset):
        return sub <= sup
    if _is_arr(sup) and _is_arr(sub):
        return _subarray([freeze(x) for x in sup], [freeze(x) for x in sub])
    if _is_arr(sup) and isinstance(sub, frozenset):
        return sub <= {freeze(x) for x in sup}
    return freeze(sup) == freeze(sub) and type_name(sup) == type_name(sub)


@builtin("object.subset")
def object_subset(ctx: BuiltinContext, sup: Any, sub: Any) -> bool:
    ok = (
        (_is_obj(sup) and _is_obj(sub))
        or (isinstance(sup, frozenset) and isinstance(sub, frozenset))
        or (_is_arr(sup) and (_is_arr(sub) or isinstance(sub, frozenset)))
    )
    if not ok:
        raise BuiltinError(
            "object.subset: both arguments must be objects, sets, or arrays "
            f"(or an array and a set), got {type_name(sup)} and {type_name(sub)}"
        )
    return _subset(sup, sub)


@builtin("array.flatten")
def array_flatten(ctx: BuiltinContext, arr: Any) -> list[Any]:
    """One level, as OPA: array elements are spliced in, deeper arrays stay as they are
    (`array.flatten([1, [2, [3]]])` is `[1, 2, [3]]`)."""
    out: list[Any] = []
    for x in want_array("array.flatten", 1, arr):
        if _is_arr(x):
            out.extend(x)
        else:
            out.append(x)
    return out


@builtin("numbers.range_step")
def range_step(ctx: BuiltinContext, a: Any, b: Any, step: Any) -> list[int]:
    x = want_int("numbers.range_step", 1, a)
    y = want_int("numbers.range_step", 2, b)
    s = want_int("numbers.range_step", 3, step)
    if s <= 0:
        raise BuiltinError("numbers.range_step: step must be a positive integer")
    return list(range(x, y + 1, s)) if x <= y else list(range(x, y - 1, -s))
