"""Hand-written Rego v1 lexer: one compiled regex drives the scan.

Output is a `Tokens` object of parallel lists (kind, text, position, newline-before,
whitespace-before) plus the comments. Punctuation tokens use their own text as kind
(`":="`, `"["`, ...); the other kinds are IDENT, NUM, STR, RAW, TMPL and EOF. Keywords
are IDENT tokens (the parser decides, so `input.if` stays a ref).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field

from cupcake_py.errors import Location
from cupcake_py.rego.errors import PARSE, RegoError

IDENT, NUM, STR, RAW, TMPL, EOF = "ident", "num", "str", "raw", "tmpl", "eof"

_TOKEN_RE = re.compile(
    r"""(?P<ws>[ \t\r\n]+)
    |(?P<comment>\#[^\n]*)
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)
    |(?P<str>"(?:[^"\\\n]|\\.)*")
    |(?P<raw>`[^`]*`)
    |(?P<tmpl>\$["`])
    |(?P<op>:=|==|!=|<=|>=|[=<>+\-*/%&|()\[\]{},;:.])
    |(?P<badstr>"(?:[^"\\\n]|\\.)*)
    |(?P<badraw>`[^`]*)
    """,
    re.VERBOSE,
)

_NL_RE = re.compile("\n")
_ESCAPE_RE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}|(.?))', re.S)


@dataclass(slots=True)
class TemplatePart:
    """A piece of a template string: literal text, or a hole `{...}` spanning src[start:end]."""

    hole: bool
    text: str  # decoded literal text ('' for holes)
    start: int
    end: int


@dataclass(slots=True)
class Tokens:
    src: str
    file: str
    kinds: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    pos: list[int] = field(default_factory=list)
    nl: list[bool] = field(default_factory=list)  # a newline precedes this token
    ws: list[bool] = field(default_factory=list)  # whitespace/comment precedes this token
    comments: list[tuple[int, str]] = field(default_factory=list)  # (position, text after '#')
    templates: dict[int, tuple[bool, list[TemplatePart]]] = field(default_factory=dict)
    errors: list[RegoError] = field(default_factory=list)
    line_starts: list[int] = field(default_factory=list)

    def location(self, pos: int) -> Location:
        ls = self.line_starts
        row = bisect_right(ls, pos)
        return Location(self.file, row, pos - ls[row - 1] + 1)


def decode_string(body: str) -> str | None:
    """Decode the inside of a "..." literal (JSON escapes); None if an escape is invalid."""
    if "\\" not in body:
        return body
    for m in _ESCAPE_RE.finditer(body):
        if m.group(1) is not None:
            return None
    try:
        return json.loads('"' + body + '"', strict=False)
    except ValueError:
        return None


def _decode_template_literal(text: str, raw: bool) -> str | None:
    if raw:
        return text.replace("\\{", "{")
    pieces = text.split("\\{")
    out = []
    for p in pieces:
        d = decode_string(p)
        if d is None:
            return None
        out.append(d)
    return "{".join(out)


def _skip_quoted(src: str, i: int, n: int) -> int:
    """src[i] is '"': index after the closing quote, or -1."""
    i += 1
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "\n":
            return -1
        i += 1
    return -1


def scan_template(src: str, start: int, n: int) -> tuple[int, list[TemplatePart]] | None:
    """src[start:start+2] is `$"` or `` $` ``: (end index, parts) or None if unterminated."""
    close = src[start + 1]
    raw = close == "`"
    i = start + 2
    parts: list[TemplatePart] = []
    lit_start = i
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == close:
            if lit_start < i:
                parts.append(TemplatePart(False, src[lit_start:i], lit_start, i))
            return i + 1, parts
        if c == "\n" and not raw:
            return None
        if c == "{":
            if lit_start < i:
                parts.append(TemplatePart(False, src[lit_start:i], lit_start, i))
            hole_start = i + 1
            depth = 1
            i += 1
            while i < n and depth:
                c = src[i]
                if c == '"':
                    i = _skip_quoted(src, i, n)
                    if i < 0:
                        return None
                    continue
                if c == "`":
                    j = src.find("`", i + 1)
                    if j < 0:
                        return None
                    i = j + 1
                    continue
                if c == "$" and i + 1 < n and src[i + 1] in "\"`":
                    sub = scan_template(src, i, n)
                    if sub is None:
                        return None
                    i = sub[0]
                    continue
                if c == "#":
                    j = src.find("\n", i)
                    i = n if j < 0 else j
                    continue
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                i += 1
            if depth:
                return None
            parts.append(TemplatePart(True, "", hole_start, i - 1))
            lit_start = i
            continue
        i += 1
    return None


def _template_token(toks: Tokens, src: str, i: int, n: int) -> tuple[str, int, str]:
    """Scan the template string at src[i]: (kind, end, text); its parts go to toks.templates."""
    scanned = scan_template(src, i, n)
    if scanned is None:
        toks.errors.append(RegoError(PARSE, "non-terminated template string", toks.location(i)))
        eol = src.find("\n", i, n)
        return STR, (n if eol < 0 else eol), '""'
    j, parts = scanned
    raw = src[i + 1] == "`"
    for p in parts:
        if not p.hole:
            decoded = _decode_template_literal(p.text, raw)
            if decoded is None:
                toks.errors.append(RegoError(PARSE, "illegal escape sequence in template string",
                                             toks.location(p.start)))
                decoded = p.text
            p.text = decoded
    toks.templates[len(toks.kinds)] = (raw, parts)
    return TMPL, j, src[i:j]


def line_starts(src: str) -> list[int]:
    return [0] + [m.end() for m in _NL_RE.finditer(src)]


def tokenize(
    src: str, file: str = "", start: int = 0, end: int | None = None, starts: list[int] | None = None
) -> Tokens:
    """Tokenize src[start:end] (positions stay absolute, so holes of template strings can be
    lexed in place; pass the enclosing text's `starts` = line_starts(src) then)."""
    n = len(src) if end is None else end
    toks = Tokens(src, file)
    toks.line_starts = line_starts(src) if starts is None else starts
    kinds, texts, poss, nls, wss = toks.kinds, toks.texts, toks.pos, toks.nl, toks.ws
    match = _TOKEN_RE.match
    i = start
    nl = False
    ws = False
    while i < n:
        m = match(src, i, n)
        if m is None:
            toks.errors.append(RegoError(PARSE, f"illegal character {src[i]!r}", toks.location(i)))
            i += 1
            ws = True
            continue
        kind = m.lastgroup
        j = m.end()
        if kind == "ws":
            if "\n" in m.group():
                nl = True
            ws = True
        elif kind == "comment":
            toks.comments.append((i, src[i + 1 : j]))
            ws = True
        else:
            text = m.group()
            if kind == "op":
                kind = text
            elif kind == "tmpl":
                kind, j, text = _template_token(toks, src, i, n)
            elif kind == "badstr":
                toks.errors.append(RegoError(PARSE, "non-terminated string", toks.location(i)))
                kind, text = STR, '""'
            elif kind == "badraw":
                toks.errors.append(RegoError(PARSE, "non-terminated raw string", toks.location(i)))
                kind, text = RAW, "``"
            kinds.append(kind)
            texts.append(text)
            poss.append(i)
            nls.append(nl)
            wss.append(ws)
            nl = ws = False
        i = j
    kinds.append(EOF)
    texts.append("")
    poss.append(n)
    nls.append(True)
    wss.append(True)
    return toks
