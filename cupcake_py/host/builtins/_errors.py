"""BuiltinError and OPA-style operand checks shared by the builtin families."""

from __future__ import annotations

from decimal import Decimal

from cupcake_py.host.builtins._values import FrozenObject, type_name

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class BuiltinError(Exception):
    """A builtin failed: undefined in non-strict mode, ``eval_builtin_error`` in strict mode."""

    code = "eval_builtin_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OperandError(BuiltinError):
    """An operand of the wrong type or shape (OPA's ``builtins.ErrOperand``): ``eval_type_error``
    in strict mode."""

    code = "eval_type_error"


def type_err(fname: str, pos: int, got: Any, *expected: str) -> OperandError:
    """OPA's ``operand N must be T but got U`` message."""
    want = expected[0] if len(expected) == 1 else "one of {" + ", ".join(expected) + "}"
    return OperandError(f"{fname}: operand {pos} must be {want} but got {type_name(got)}")


def want_str(fname: str, pos: int, v: Any) -> str:
    if not isinstance(v, str):
        raise type_err(fname, pos, v, "string")
    return v


def want_num(fname: str, pos: int, v: Any) -> int | Decimal:
    if isinstance(v, bool) or not isinstance(v, int | Decimal):
        raise type_err(fname, pos, v, "number")
    return v


def want_int(fname: str, pos: int, v: Any) -> int:
    """An integral number, however written (`1e3`, `2.0` accepted): OPA's BigIntOperand and
    the exact big.Float → integer conversions (numbers.range_step, timestamps)."""
    n = want_num(fname, pos, v)
    if isinstance(n, Decimal):
        if n != n.to_integral_value():
            raise OperandError(f"{fname}: operand {pos} must be integer number but got floating-point number")
        return int(n)
    return n


_INT64 = 1 << 63


def want_int_literal(fname: str, pos: int, v: Any) -> int:
    """OPA's IntOperand: the number's text must parse as an int64, so `1e3` and `2.0` are
    rejected (rand.intn, regex.find_n, strings.split_n, time.add_date, ...). Numbers
    written without fraction/exponent arrive as ``int`` (docs/architecture.md section 1)."""
    n = want_num(fname, pos, v)
    if isinstance(n, Decimal) or not -_INT64 <= n < _INT64:
        raise OperandError(f"{fname}: operand {pos} must be integer number but got floating-point number")
    return n


def want_array(fname: str, pos: int, v: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(v, list | tuple):
        raise type_err(fname, pos, v, "array")
    return v


def want_obj(fname: str, pos: int, v: Any) -> dict[Any, Any]:
    if isinstance(v, FrozenObject):
        return dict(v.items())
    if not isinstance(v, dict):
        raise type_err(fname, pos, v, "object")
    return v


def want_strs(fname: str, pos: int, v: Any) -> list[str]:
    """A string, or an array/set of strings, as a list (OPA's 'string or collection of strings')."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, list | tuple | frozenset | set):
        out = []
        for x in v:
            if not isinstance(x, str):
                raise OperandError(f"{fname}: operand {pos} must be array of strings but got {type_name(x)}")
            out.append(x)
        return out
    raise type_err(fname, pos, v, "string", "array", "set")


def accepts(parse: Callable[[str], object], text: Any,
            rejects: type[Exception] | tuple[type[Exception], ...] = BuiltinError) -> bool:
    """OPA's `*.is_valid` builtins: whether `text` is a string that `parse` takes without
    raising `rejects` (anything else it raises is a bug and propagates)."""
    if not isinstance(text, str):
        return False
    try:
        parse(text)
    except rejects:
        return False
    return True
