"""String builtins the C runtime leaves to the host."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_int_literal, want_str, want_strs


@builtin("indexof_n")
def indexof_n(ctx: BuiltinContext, haystack: Any, needle: Any) -> list[int]:
    s = want_str("indexof_n", 1, haystack)
    n = want_str("indexof_n", 2, needle)
    if not n:
        raise BuiltinError("indexof_n: empty search character")
    out: list[int] = []
    i = s.find(n)
    while i != -1:
        out.append(i)
        i = s.find(n, i + 1)
    return out


@builtin("strings.count")
def strings_count(ctx: BuiltinContext, search: Any, substring: Any) -> int:
    s = want_str("strings.count", 1, search)
    sub = want_str("strings.count", 2, substring)
    return len(s) + 1 if not sub else s.count(sub)


def _any_match(fname: str, search: Any, base: Any, test: str) -> bool:
    xs = want_strs(fname, 1, search)
    ys = want_strs(fname, 2, base)
    return any(getattr(x, test)(y) for x in xs for y in ys)


@builtin("strings.any_prefix_match")
def any_prefix_match(ctx: BuiltinContext, search: Any, base: Any) -> bool:
    return _any_match("strings.any_prefix_match", search, base, "startswith")


@builtin("strings.any_suffix_match")
def any_suffix_match(ctx: BuiltinContext, search: Any, base: Any) -> bool:
    return _any_match("strings.any_suffix_match", search, base, "endswith")


@builtin("strings.split_n")
def split_n(ctx: BuiltinContext, x: Any, delimiter: Any, n: Any) -> list[str]:
    """Go's strings.SplitN: n < 0 → all parts, n == 0 → [], n > 0 → at most n parts."""
    s = want_str("strings.split_n", 1, x)
    d = want_str("strings.split_n", 2, delimiter)
    k = want_int_literal("strings.split_n", 3, n)
    if k == 0:
        return []
    if d == "":
        chars = list(s)
        if k < 0 or k >= len(chars):
            return chars
        return chars[: k - 1] + ["".join(chars[k - 1 :])]
    return s.split(d) if k < 0 else s.split(d, k - 1)
