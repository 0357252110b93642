"""rand.intn: per-evaluation memoised random integers."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import want_int_literal, want_str


@builtin("rand.intn")
def intn(ctx: BuiltinContext, s: Any, n: Any) -> int:
    """A value in [0, |n|); the same (str, n) gives the same value within one evaluation."""
    key = ("rand.intn", want_str("rand.intn", 1, s), want_int_literal("rand.intn", 2, n))
    if key not in ctx.cache:
        bound = abs(key[2])
        ctx.cache[key] = 0 if bound == 0 else ctx.rand.randrange(bound)
    value: int = ctx.cache[key]
    return value
