"""glob.match (gobwas/glob semantics, as OPA) and glob.quote_meta."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, OperandError, type_err, want_str
from cupcake_py.host.builtins._re2 import RegexError, compile_go, is_match

_SPECIAL = "*?\\[]{}"


def _lit(c: str) -> str:
    return "\\" + c if not (c.isalnum() or c == "_") and ord(c) < 128 else c


class _Parser:
    """Translate a gobwas glob into an RE2 pattern."""

    def __init__(self, pattern: str, seps: str) -> None:
        self.p, self.i = pattern, 0
        cls = "".join(_lit(c) for c in seps)
        self.one = f"[^{cls}]" if seps else "."

    def parse(self, in_terms: bool = False) -> str:
        out: list[str] = []
        p = self.p
        while self.i < len(p):
            c = p[self.i]
            if in_terms and c in ",}":
                return "".join(out)
            self.i += 1
            if c == "*":
                if self.i < len(p) and p[self.i] == "*":
                    self.i += 1
                    out.append(".*")
                else:
                    out.append(self.one + "*")
            elif c == "?":
                out.append(self.one)
            elif c == "\\":
                if self.i >= len(p):
                    raise ValueError("unexpected end of pattern after escape")
                out.append(_lit(p[self.i]))
                self.i += 1
            elif c == "[":
                out.append(self._range())
            elif c == "{":
                alts = [self.parse(in_terms=True)]
                while self.i < len(p) and p[self.i] == ",":
                    self.i += 1
                    alts.append(self.parse(in_terms=True))
                if self.i >= len(p) or p[self.i] != "}":
                    raise ValueError("unclosed terms: missing '}'")
                self.i += 1
                out.append("(?:" + "|".join(alts) + ")")
            elif c == "}" and not in_terms:
                raise ValueError("unexpected '}'")
            else:
                out.append(_lit(c))
        if in_terms:
            raise ValueError("unclosed terms: missing '}'")
        return "".join(out)

    def _range(self) -> str:
        p = self.p
        neg = self.i < len(p) and p[self.i] == "!"
        if neg:
            self.i += 1
        items: list[str] = []
        while self.i < len(p) and p[self.i] != "]":
            c = p[self.i]
            if c == "\\" and self.i + 1 < len(p):
                self.i += 1
                c = p[self.i]
            if self.i + 2 < len(p) and p[self.i + 1] == "-" and p[self.i + 2] != "]":
                hi = p[self.i + 2]
                if hi < c:
                    raise ValueError(f"invalid range {c}-{hi}")
                items.append(f"{_lit(c)}-{_lit(hi)}")
                self.i += 3
            else:
                items.append(_lit(c))
                self.i += 1
        if self.i >= len(p):
            raise ValueError("unclosed range: missing ']'")
        self.i += 1
        return "[" + ("^" if neg else "") + "".join(items) + "]"


@lru_cache(maxsize=512)
def glob_regex(pattern: str, seps: str) -> Any:
    try:
        return compile_go("(?s)^" + _Parser(pattern, seps).parse() + "$")
    except (ValueError, RegexError) as exc:
        raise BuiltinError(f"glob.match: {exc}") from None


def _separators(delimiters: Any) -> str:
    if delimiters is None:
        return ""
    if not isinstance(delimiters, list | tuple):
        raise type_err("glob.match", 2, delimiters, "array", "null")
    if not delimiters:
        return "."
    out = []
    for d in delimiters:
        if not isinstance(d, str):
            raise OperandError(f"glob.match: operand 2 must be array of strings but got {type(d).__name__}")
        out.append(d[:1])
    return "".join(out)


@builtin("glob.match")
def glob_match(ctx: BuiltinContext, pattern: Any, delimiters: Any, match: Any) -> bool:
    p = want_str("glob.match", 1, pattern)
    s = want_str("glob.match", 3, match)
    return is_match(glob_regex(p, _separators(delimiters)), s)


@builtin("glob.quote_meta")
def quote_meta(ctx: BuiltinContext, pattern: Any) -> str:
    return "".join("\\" + c if c in _SPECIAL else c for c in want_str("glob.quote_meta", 1, pattern))
