"""internal.print (Rego ``print``) and trace."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import want_array, want_str
from cupcake_py.host.builtins._values import sorted_values
from cupcake_py.host.builtins.template import value_text


def _lines(operands: list[Any]) -> Iterator[str]:
    """One line per element of the cross product of the operand sets (OPA's print)."""

    def rec(i: int, acc: list[str]) -> Iterator[str]:
        if i == len(operands):
            yield " ".join(acc)
            return
        xs = operands[i]
        if not isinstance(xs, frozenset):
            yield from rec(i + 1, [*acc, value_text(xs)])
            return
        if not xs:
            yield from rec(i + 1, [*acc, "<undefined>"])
            return
        for x in sorted_values(xs):
            yield from rec(i + 1, [*acc, value_text(x)])

    return rec(0, [])


@builtin("internal.print", void=True)
def internal_print(ctx: BuiltinContext, operands: Any) -> None:
    for line in _lines(list(want_array("internal.print", 1, operands))):
        ctx.print_hook(line)


@builtin("trace")
def trace(ctx: BuiltinContext, note: Any) -> bool:
    ctx.traces.append(want_str("trace", 1, note))
    return True
