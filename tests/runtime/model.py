"""A Python reference model of Rego values for the runtime tests.

Values: None, bool, Num (exact decimal text), str, list, Obj (pairs, any key
type), RSet (elements). The model gives Rego's total order, the expected
JSON/Rego dumps (as specified in opa.h), literal text for the runtime's
parsers, and hypothesis strategies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from functools import cmp_to_key
from typing import Any

from hypothesis import strategies as st


@dataclass(frozen=True)
class Num:
    text: str

    @property
    def value(self) -> Decimal:
        return Decimal(self.text)


@dataclass(frozen=True)
class Obj:
    pairs: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class RSet:
    elems: tuple[Any, ...]


def _rank(v: Any) -> int:
    if v is None:
        return 0
    if isinstance(v, bool):
        return 1
    for i, t in enumerate((Num, str, list, Obj, RSet), start=2):
        if isinstance(v, t):
            return i
    raise TypeError(v)


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _cmp_seq(a: list[Any], b: list[Any]) -> int:
    for x, y in zip(a, b, strict=False):
        c = rcmp(x, y)
        if c:
            return c
    return _sign(len(a) - len(b))


def rcmp(a: Any, b: Any) -> int:
    """Rego's total order."""
    ra, rb = _rank(a), _rank(b)
    if ra != rb:
        return _sign(ra - rb)
    if a is None:
        return 0
    if isinstance(a, bool):
        return _sign(int(a) - int(b))
    if isinstance(a, Num):
        return _sign(a.value.compare(b.value))
    if isinstance(a, str):
        x, y = a.encode(), b.encode()
        return (x > y) - (x < y)
    if isinstance(a, list):
        return _cmp_seq(a, b)
    if isinstance(a, Obj):
        pa, pb = sorted_pairs(a), sorted_pairs(b)
        for (ka, va), (kb, vb) in zip(pa, pb, strict=False):
            c = rcmp(ka, kb) or rcmp(va, vb)
            if c:
                return c
        return _sign(len(pa) - len(pb))
    return _cmp_seq(sorted_elems(a), sorted_elems(b))


def sorted_pairs(o: Obj) -> list[tuple[Any, Any]]:
    return sorted(o.pairs, key=cmp_to_key(lambda p, q: rcmp(p[0], q[0])))


def sorted_elems(s: RSet) -> list[Any]:
    return sorted(s.elems, key=cmp_to_key(rcmp))


def dedupe_pairs(pairs: list[tuple[Any, Any]]) -> tuple[tuple[Any, Any], ...]:
    """Last value wins, like the parsers."""
    out: list[tuple[Any, Any]] = []
    for k, v in pairs:
        out = [(k2, v2) for k2, v2 in out if rcmp(k2, k) != 0]
        out.append((k, v))
    return tuple(out)


def dedupe(elems: list[Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    for e in elems:
        if all(rcmp(e, x) != 0 for x in out):
            out.append(e)
    return tuple(out)


# ---------------- text ----------------

def quote(s: str, html: bool) -> str:
    out = json.dumps(s, ensure_ascii=False)
    out = out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    if html:
        out = out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return out


def dump_json(v: Any) -> str:
    """Expected opa_json_dump output."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Num):
        return v.text
    if isinstance(v, str):
        return quote(v, True)
    if isinstance(v, list):
        return "[" + ",".join(dump_json(x) for x in v) + "]"
    if isinstance(v, Obj):
        items = []
        for k, x in sorted_pairs(v):
            ks = quote(k, True) if isinstance(k, str) else quote(dump_json(k), True)
            items.append(ks + ":" + dump_json(x))
        return "{" + ",".join(items) + "}"
    return "[" + ",".join(dump_json(x) for x in sorted_elems(v)) + "]"


def dump_rego(v: Any) -> str:
    """Expected opa_value_dump output."""
    if isinstance(v, str):
        return quote(v, False)
    if isinstance(v, list):
        return "[" + ", ".join(dump_rego(x) for x in v) + "]"
    if isinstance(v, Obj):
        return "{" + ", ".join(dump_rego(k) + ": " + dump_rego(x) for k, x in sorted_pairs(v)) + "}"
    if isinstance(v, RSet):
        if not v.elems:
            return "set()"
        return "{" + ", ".join(dump_rego(x) for x in sorted_elems(v)) + "}"
    return dump_json(v)


def literal(v: Any, order: int = 0) -> str:
    """Rego literal text in insertion order (order=1: reversed insertion)."""
    if isinstance(v, list):
        return "[" + ", ".join(literal(x, order) for x in v) + "]"
    if isinstance(v, Obj):
        pairs = list(v.pairs)[:: -1 if order else 1]
        return "{" + ", ".join(literal(k, order) + ": " + literal(x, order) for k, x in pairs) + "}"
    if isinstance(v, RSet):
        elems = list(v.elems)[:: -1 if order else 1]
        return "{" + ", ".join(literal(x, order) for x in elems) + "}" if elems else "set()"
    if isinstance(v, str):
        return json.dumps(v)  # ASCII escapes: exercises \\u parsing
    return dump_json(v)


# ---------------- strategies ----------------

def _num_text(mant: int, frac: int, exp: int | None) -> str:
    s = str(abs(mant))
    if frac:
        s = s.rjust(frac + 1, "0")
        s = s[:-frac] + "." + s[-frac:]
    if exp is not None:
        s += f"e{exp}"
    return ("-" if mant < 0 else "") + s


def _num_from(t: tuple[int, int, int | None]) -> Num:
    return Num(_num_text(*t))


numbers = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(lambda i: Num(str(i))),
    st.integers(-(10**30), 10**30).map(lambda i: Num(str(i))),
    st.tuples(st.integers(-(10**25), 10**25), st.integers(0, 12), st.none() | st.integers(-30, 30)).map(_num_from),
)

texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
scalars = st.one_of(st.none(), st.booleans(), numbers, texts)


def _containers(children: st.SearchStrategy[Any], any_keys: bool) -> st.SearchStrategy[Any]:
    keys = children if any_keys else texts
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(st.tuples(keys, children), max_size=5).map(lambda ps: Obj(dedupe_pairs(ps))),
        *([st.lists(children, max_size=5).map(lambda es: RSet(dedupe(es)))] if any_keys else []),
    )


rego_values = st.recursive(scalars, lambda c: _containers(c, True), max_leaves=25)
json_values = st.recursive(scalars, lambda c: _containers(c, False), max_leaves=25)
