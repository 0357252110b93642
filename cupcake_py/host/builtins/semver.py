"""semver.is_valid and semver.compare (Semantic Versioning 2.0.0)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_str
from cupcake_py.host.builtins._re2 import compile_go

_SEMVER = (
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)

Version = tuple[int, int, int, tuple[str, ...]]


@lru_cache(maxsize=1024)
def parse_semver(s: str) -> Version | None:
    m = compile_go(_SEMVER).search(s)
    if m is None:
        return None
    pre = tuple(m.group(4).split(".")) if m.group(4) else ()
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), pre


def _cmp_ident(a: str, b: str) -> int:
    an, bn = a.isdigit(), b.isdigit()
    if an and bn:
        x, y = int(a), int(b)
        return (x > y) - (x < y)
    if an != bn:
        return -1 if an else 1
    return (a > b) - (a < b)


def compare_semver(a: Version, b: Version) -> int:
    for x, y in zip(a[:3], b[:3], strict=True):
        if x != y:
            return -1 if x < y else 1
    pa, pb = a[3], b[3]
    if not pa or not pb:
        return (not pa) - (not pb) if pa or pb else 0
    for ia, ib in zip(pa, pb, strict=False):
        c = _cmp_ident(ia, ib)
        if c:
            return c
    return (len(pa) > len(pb)) - (len(pa) < len(pb))


@builtin("semver.is_valid")
def is_valid(ctx: BuiltinContext, vsn: Any) -> bool:
    return isinstance(vsn, str) and parse_semver(vsn) is not None


@builtin("semver.compare")
def compare(ctx: BuiltinContext, a: Any, b: Any) -> int:
    out = []
    for pos, v in ((1, a), (2, b)):
        s = want_str("semver.compare", pos, v)
        p = parse_semver(s)
        if p is None:
            raise BuiltinError(f'semver.compare: operand {pos}: string "{s}" is not a valid SemVer')
        out.append(p)
    return compare_semver(out[0], out[1])
