"""Intersection of two "regex globs" (regex.globs_match).

Supported syntax: literal characters, ``\\x`` escapes, ``.``, character classes
``[...]`` / ``[^...]`` with ranges, and the quantifiers ``*``, ``+`` and ``?``.
Two globs match when some string matches both; decided by a product-automaton search.
"""

from __future__ import annotations

from functools import lru_cache

from cupcake_py.core.record import FrozenRecord

_MAX = 0x10FFFF


class CharSet(FrozenRecord):
    __slots__ = ("ranges", "negated")
    ranges: tuple[tuple[int, int], ...]  # sorted, inclusive
    negated: bool

    def __init__(self, ranges: tuple[tuple[int, int], ...], negated: bool = False) -> None:
        self._fill(ranges, negated)

    def positive(self) -> tuple[tuple[int, int], ...]:
        if not self.negated:
            return self.ranges
        out, lo = [], 0
        for a, b in self.ranges:
            if a > lo:
                out.append((lo, a - 1))
            lo = max(lo, b + 1)
        if lo <= _MAX:
            out.append((lo, _MAX))
        return tuple(out)


ANY = CharSet(((0, _MAX),))


def _intersects(a: CharSet, b: CharSet) -> bool:
    pa, pb = a.positive(), b.positive()
    i = j = 0
    while i < len(pa) and j < len(pb):
        if pa[i][1] < pb[j][0]:
            i += 1
        elif pb[j][1] < pa[i][0]:
            j += 1
        else:
            return True
    return False


class Tok(FrozenRecord):
    __slots__ = ("chars", "quant")
    chars: CharSet
    quant: str  # "1", "*", "?"

    def __init__(self, chars: CharSet, quant: str) -> None:
        self._fill(chars, quant)


def _norm(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    ranges.sort()
    out: list[tuple[int, int]] = []
    for a, b in ranges:
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return tuple(out)


@lru_cache(maxsize=256)
def parse(glob: str) -> tuple[Tok, ...]:
    toks: list[Tok] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c in "*+?":
            if not toks or toks[-1].quant != "1":
                raise ValueError(f"quantifier {c!r} without a preceding character in {glob!r}")
            last = toks.pop()
            if c == "+":
                toks += [Tok(last.chars, "1"), Tok(last.chars, "*")]
            else:
                toks.append(Tok(last.chars, c))
            i += 1
            continue
        if c == "\\":
            if i + 1 >= n:
                raise ValueError(f"trailing backslash in {glob!r}")
            o = ord(glob[i + 1])
            toks.append(Tok(CharSet(((o, o),)), "1"))
            i += 2
        elif c == ".":
            toks.append(Tok(ANY, "1"))
            i += 1
        elif c == "[":
            j = i + 1
            neg = j < n and glob[j] == "^"
            if neg:
                j += 1
            ranges: list[tuple[int, int]] = []
            first = True
            while j < n and (glob[j] != "]" or first):
                first = False
                ch = glob[j]
                if ch == "\\" and j + 1 < n:
                    j += 1
                    ch = glob[j]
                lo = ord(ch)
                if j + 2 < n and glob[j + 1] == "-" and glob[j + 2] != "]":
                    hi_ch = glob[j + 2]
                    if hi_ch == "\\" and j + 3 < n:
                        j += 1
                        hi_ch = glob[j + 2]
                    hi = ord(hi_ch)
                    if hi < lo:
                        raise ValueError(f"invalid character range in {glob!r}")
                    ranges.append((lo, hi))
                    j += 3
                else:
                    ranges.append((lo, lo))
                    j += 1
            if j >= n:
                raise ValueError(f"unterminated character class in {glob!r}")
            toks.append(Tok(CharSet(_norm(ranges), neg), "1"))
            i = j + 1
        else:
            o = ord(c)
            toks.append(Tok(CharSet(((o, o),)), "1"))
            i += 1
    return tuple(toks)


def _closure(toks: tuple[Tok, ...], i: int) -> list[int]:
    out = [i]
    while i < len(toks) and toks[i].quant != "1":
        i += 1
        out.append(i)
    return out


def globs_intersect(a: str, b: str) -> bool:
    ta, tb = parse(a), parse(b)
    seen: set[tuple[int, int]] = set()
    stack = [(i, j) for i in _closure(ta, 0) for j in _closure(tb, 0)]
    while stack:
        st = stack.pop()
        if st in seen:
            continue
        seen.add(st)
        i, j = st
        if i == len(ta) and j == len(tb):
            return True
        if i == len(ta) or j == len(tb):
            continue
        x, y = ta[i], tb[j]
        if not _intersects(x.chars, y.chars):
            continue
        ni = [i] if x.quant == "*" else _closure(ta, i + 1)
        nj = [j] if y.quant == "*" else _closure(tb, j + 1)
        if x.quant == "*":
            ni = _closure(ta, i)
        if y.quant == "*":
            nj = _closure(tb, j)
        stack.extend((p, q) for p in ni for q in nj)
    return False
