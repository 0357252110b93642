"""Hand-written Rego v1 lexer: one compiled regex drives the scan.

Output is a `Tokens` object of parallel lists (kind, text, position, newline-before,
whitespace-before) plus the comments. Punctuation tokens use their own text as kind
(`":="`, `"["`, ...); the other kinds are IDENT, NUM, STR, RAW, TMPL and EOF. Keywords
are IDENT tokens (the parser decides, so `input.if` stays a ref).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from cupcake_py.core.errors import Location, new_location
from cupcake_py.core.slotted import dataclass, field
from cupcake_py.rego.errors import PARSE, RegoError

IDENT, NUM, STR, RAW, TMPL, EOF = "ident", "num", "str", "raw", "tmpl", "eof"

# One match per token: leading trivia (whitespace, comments) in group 1, then the token.
_TOKEN_RE = re.compile(
    r"""((?:[ \t\r\n]+|\#[^\n]*)*)
    (?:(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)
    |(?P<str>"(?:[^"\\\n]|\\.)*")
    |(?P<op>:=|==|!=|<=|>=|[=<>+\-*/%&|()\[\]{},;:.])
    |(?P<raw>`[^`]*`)
    |(?P<tmpl>\$["`])
    |(?P<badstr>"(?:[^"\\\n]|\\.)*)
    |(?P<badraw>`[^`]*)
    |(?P<end>\Z)
    |(?P<bad>.))
    """,
    re.VERBOSE | re.DOTALL,
)
_COMMENT_RE = re.compile(r"#[^\n]*")
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
        return new_location(self.file, row, pos - ls[row - 1] + 1)  # once per AST node


LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_string(body: str) -> str | None:
    """Decode the inside of a "..." literal (JSON escapes); None if an escape is invalid."""
    if "\\" not in body:
        return body
    for m in _ESCAPE_RE.finditer(body):
        if m.group(1) is not None:
            return None
    try:
        import json  # (only a string with escapes: the json package stays off most parses)

        text = json.loads('"' + body + '"', strict=False)
    except ValueError:
        return None
    # a `\uD800`-style escape left unpaired: U+FFFD, as Go's JSON decoder (OPA) makes it
    return LONE_SURROGATE.sub("\ufffd", text) if LONE_SURROGATE.search(text) else text


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
    while True:
        m = match(src, i, n)
        assert m is not None  # the `bad` alternative matches any character
        ts = m.end(1)
        j = m.end()
        nl = ws = False
        if ts > i:
            ws = True
            trivia = src[i:ts]
            nl = "\n" in trivia
            if "#" in trivia:
                toks.comments.extend((i + c.start(), c.group()[1:]) for c in _COMMENT_RE.finditer(trivia))
        kind = m.lastgroup
        assert kind is not None  # every token alternative is a named group
        text = src[ts:j]
        if kind == "op":
            kind = text
        elif kind == "end":
            break
        elif kind == "tmpl":
            kind, j, text = _template_token(toks, src, ts, n)
        elif kind == "badstr":
            toks.errors.append(RegoError(PARSE, "non-terminated string", toks.location(ts)))
            kind, text = STR, '""'
        elif kind == "badraw":
            toks.errors.append(RegoError(PARSE, "non-terminated raw string", toks.location(ts)))
            kind, text = RAW, "``"
        elif kind == "bad":
            toks.errors.append(RegoError(PARSE, f"illegal character {text!r}", toks.location(ts)))
            i = j
            continue
        kinds.append(kind)
        texts.append(text)
        poss.append(ts)
        nls.append(nl)
        wss.append(ws)
        i = j
    kinds.append(EOF)
    texts.append("")
    poss.append(n)
    nls.append(True)
    wss.append(True)
    return toks
