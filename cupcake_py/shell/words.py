"""Word expansion: tree-sitter word nodes -> the fields bash would pass as arguments.

In: the word node(s) of one shell word (adjacent nodes form one word), the source bytes and
a `Scope` (variables known so far, cwd, and a callback that analyses command substitutions,
whose inner commands really run). Out: `Field`s in bash's order of expansions: brace
expansion, tilde, parameter expansion (of static values), word splitting of unquoted
expansions, pathname expansion (bounded, against the file system). Anything that depends
on run time (`$(..)`, unknown `$VAR`, arithmetic, process substitution, `$RANDOM`…) makes the
field opaque (value None) with a reason; an unquoted opaque part may also split into any
number of words (`Field.split`). Never raises except `Deadline` (budget exhausted).
"""

from __future__ import annotations

import os
import re

from cupcake_py.shell import globbing
from cupcake_py.shell.model import Deadline, Field
from cupcake_py.shell.params import expand_parameter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from tree_sitter import Node

    from cupcake_py.shell.model import Result

    Chunk = tuple[int, str]

# chunk kinds: literal unquoted source text (brace, tilde, glob, no split), quoted text,
# unquoted expansion result (glob and split, no brace), opaque unquoted, opaque quoted
LIT, QUOTED, EXPANDED, OPAQUE, OPAQUE_Q, ARRAY_Q = range(6)
# ARRAY_Q: "${a[@]}", quoted elements that stay separate words (joined by NUL, which no value holds)
MAX_BRACE = 1024
ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
               "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
DQ_ESCAPABLE = frozenset('$`"\\\n')
SEQUENCE = (r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$")
TOO_BIG = "\0too big"
SIDE_EFFECT = (r"\+\+|--|(?<![=!<>])=(?!=)")


class Scope:
    """What expansion needs from the walker (implemented by walker.State)."""

    cwd: str | None

    def lookup(self, name: str) -> tuple[bool, str | None]:  # (known, value or None when unset)
        raise NotImplementedError

    def invalidate(self, name: str) -> None:
        raise NotImplementedError

    def substitute(self, node: Node) -> str | None:
        """Analyse the commands of a command/process substitution; its static output if known."""
        raise NotImplementedError

    def positional(self) -> list[str] | None:
        raise NotImplementedError

    def program_name(self) -> str | None:
        """$0 when known."""
        raise NotImplementedError

    def array(self, name: str) -> list[str] | None:
        """Elements of an indexed array (a scalar: one element); None: not known statically."""
        raise NotImplementedError

    def glob_options(self) -> frozenset[str] | None:
        """shopt settings that change pathname expansion; None: not known statically."""
        raise NotImplementedError

    def ifs(self) -> str | None:
        """The field separators (bash ignores IFS from the environment); None: not static."""
        raise NotImplementedError


def text(src: bytes, node: Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def decode_ansi_c(body: str) -> str:
    """The value of $'body' (bash ANSI-C quoting); a NUL ends the string as in bash."""
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in ANSI_SIMPLE:
            out.append(ANSI_SIMPLE[e])
        elif e in "01234567":
            j = i
            while j < len(body) and j < i + 2 and body[j] in "01234567":
                j += 1
            out.append(chr(int(e + body[i:j], 8) & 0xFF))
            i = j
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            j = i
            while j < len(body) and j < i + width and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i:
                out.append("\\" + e)
            else:
                code = int(body[i:j], 16)
                out.append(chr(code) if code < 0x110000 else "\ufffd")
            i = j
        elif e == "c" and i < len(body):
            out.append(chr(ord(body[i].upper()) ^ 0x40))
            i += 1
        else:
            out.append("\\" + e)
    value = "".join(out)
    return value.split("\0", 1)[0]


_ESCAPE = re.compile(r"\\(.)", re.DOTALL)  # backslash and the character it quotes
# in "…": a backslash before one of DQ_ESCAPABLE goes (the character stays, a newline goes too)
_DQ_ESCAPE = re.compile(r"\\(?:\n|([" + re.escape("".join(sorted(DQ_ESCAPABLE - {"\n"}))) + "]))")


def _unquoted(raw: str) -> list[Chunk]:
    """Unquoted source text: a backslash quotes the next character; backslash-newline vanishes.
    (Literal runs are found by a C regex split: no Python step per character.)"""
    if "\\" not in raw:
        return [(LIT, raw)] if raw else []
    parts = _ESCAPE.split(raw)  # literal, quoted character, literal, …
    out: list[Chunk] = [(LIT, parts[0])] if parts[0] else []
    for i in range(1, len(parts), 2):
        if parts[i] != "\n":
            out.append((QUOTED, parts[i]))
        if parts[i + 1]:
            out.append((LIT, parts[i + 1]))
    return out


def _double_quoted(raw: str) -> str:
    if "\\" not in raw:
        return raw
    return "".join(filter(None, _DQ_ESCAPE.split(raw)))  # the group is None for a backslash-newline


class Expander:
    """Expands the words of one command line against a scope."""

    __slots__ = ("src", "scope", "result")

    def __init__(self, src: bytes, scope: Scope, result: Result) -> None:
        self.src = src
        self.scope = scope
        self.result = result

    # -- chunks -------------------------------------------------------------------------------
    def chunks(self, nodes: Sequence[Node], quoted: bool = False) -> list[Chunk]:
        out: list[Chunk] = []
        for node in nodes:
            out.extend(self._node(node, quoted))
        return out

    def _gapfill(self, node: Node, start: int, end: int, quoted: bool, skip: frozenset[str]) -> list[Chunk]:
        """Children of `node` between byte offsets, with the text between them as literal."""
        out: list[Chunk] = []
        pos = start
        for child in node.children:
            if child.end_byte <= start or child.start_byte >= end:
                continue
            if child.start_byte > pos:
                out.extend(self._raw(self.src[pos:child.start_byte].decode("utf-8", "replace"), quoted))
            if child.type not in skip:
                out.extend(self._node(child, quoted))
            pos = max(pos, child.end_byte)
        if pos < end:
            out.extend(self._raw(self.src[pos:end].decode("utf-8", "replace"), quoted))
        return out

    def _raw(self, raw: str, quoted: bool) -> list[Chunk]:
        return [(QUOTED, _double_quoted(raw))] if quoted else _unquoted(raw)

    def _node(self, node: Node, quoted: bool) -> list[Chunk]:
        kind = node.type
        raw = text(self.src, node)
        if kind in ("word", "number", "extglob_pattern", "regex", "test_operator", "variable_name"):
            return self._raw(raw, quoted)
        if kind == "raw_string":
            return [(QUOTED, raw[1:-1])]
        if kind == "ansi_c_string":
            return [(QUOTED, decode_ansi_c(raw[2:-1]))]
        if kind in ("string", "translated_string"):
            opener = 2 if raw.startswith("$") else 1
            got = self._gapfill(node, node.start_byte + opener, node.end_byte - 1, True, frozenset({'"', "$"}))
            return got or [(QUOTED, "")]
        if kind == "string_content":
            return [(QUOTED, _double_quoted(raw))] if quoted else _unquoted(raw)
        if kind == "concatenation":
            return self._gapfill(node, node.start_byte, node.end_byte, quoted, frozenset())
        if kind in ("simple_expansion", "expansion"):
            return self._expansion(node, raw, quoted)
        if kind in ("command_substitution", "process_substitution"):
            value = self.scope.substitute(node)
            if value is not None and kind == "command_substitution":
                return [(QUOTED if quoted else EXPANDED, value)]
            what = "command substitution" if kind == "command_substitution" else "process substitution"
            return [(OPAQUE_Q if quoted else OPAQUE, f"{what} {raw[:60]!r} is known only at run time")]
        if kind == "arithmetic_expansion":
            return self._arithmetic(node, raw, quoted)
        if kind == "brace_expression":
            return [(QUOTED if quoted else LIT, raw)]
        if kind == "$":  # a lone `$` before a quote ($"...") or at the end of a word
            return [] if node.next_sibling is not None and node.next_sibling.start_byte == node.end_byte \
                else [(QUOTED if quoted else LIT, "$")]
        return [(OPAQUE_Q if quoted else OPAQUE, f"unsupported shell syntax {kind!r}")]

    def _expansion(self, node: Node, raw: str, quoted: bool) -> list[Chunk]:
        def operand(start_char: int, end_char: int, as_quoted: bool) -> list[Chunk]:
            start = node.start_byte + len(raw[:start_char].encode())
            end = node.start_byte + len(raw[:end_char].encode())
            return self._gapfill(node, start, end, as_quoted, frozenset({"}", "${"}))

        return expand_parameter(raw, self.scope, operand, quoted)

    def _arithmetic(self, node: Node, raw: str, quoted: bool) -> list[Chunk]:
        body = raw[3:-2] if raw.startswith("$((") else raw
        for child in _descendants(node):
            if child.type in ("command_substitution", "process_substitution"):
                self.scope.substitute(child)
        if re.search(SIDE_EFFECT, body):
            for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", body):
                self.scope.invalidate(name)
        stripped = body.strip()
        if re.fullmatch(r"-?\d+", stripped):
            return [(QUOTED if quoted else EXPANDED, str(int(stripped)))]
        return [(OPAQUE_Q if quoted else OPAQUE, f"arithmetic expansion {raw[:60]!r} is not evaluated")]

    # -- fields -------------------------------------------------------------------------------
    def single(self, nodes: Sequence[Node]) -> Field:
        """An assignment value or redirect-like context: no brace expansion, splitting or glob;
        tilde at the start and after ':' (assignments)."""
        chunks = _tilde(self.chunks(nodes), self.scope, assignment=True)
        opaque = [c[1] for c in chunks if c[0] in (OPAQUE, OPAQUE_Q)]
        if opaque:
            return _plain(chunks)
        return Field("".join(c[1].replace("\0", " ") if c[0] == ARRAY_Q else c[1] for c in chunks))

    def fields(self, nodes: Sequence[Node], *, glob: bool = True) -> list[Field]:
        out: list[Field] = []
        for alternative in _brace(self.chunks(nodes)):
            for parts in _split(_tilde(alternative, self.scope), self.scope.ifs()):
                out.extend(self._glob(parts) if glob else [_plain(parts)])
        self.result.words += len(out)
        if self.result.words > self.result.budget.max_words:
            raise Deadline("more words than the analysis budget allows")
        return out

    def _glob(self, parts: list[Chunk]) -> list[Field]:
        field = _plain(parts)
        if field.value is None:
            return [field]
        pattern = "".join(t if k in (LIT, EXPANDED) else _escape_glob(t) for k, t in parts)
        if not globbing.has_glob(pattern):
            return [field]
        opts = self.scope.glob_options()
        if opts is None:
            return [Field(None, reason=f"glob {pattern!r} under shell options known only at run time", split=True)]
        if "noglob" in opts:
            return [field]
        cwd = self.scope.cwd
        if cwd is None and not pattern.startswith("/"):
            return [Field(None, pattern=None, reason=f"glob {pattern!r} in a directory not known statically")]
        got = self.result.glob(pattern, cwd or "/", opts)
        if got.truncated:
            return [Field(None, pattern=pattern, reason=f"glob {pattern!r} matches more than the budget allows",
                          split=True)] + [Field(m, pattern=pattern) for m in got.matches]
        if not got.matches:
            if "nullglob" in opts:
                return []
            if "failglob" in opts:
                return [Field(None, reason=f"glob {pattern!r} matches nothing (failglob: the command does not run)")]
            return [Field(globbing.unescape(pattern), pattern=pattern)]
        return [Field(m, pattern=pattern) for m in got.matches]


def _descendants(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        n = stack.pop()
        out.append(n)
        if n.type not in ("command_substitution", "process_substitution"):
            stack.extend(n.children)
    return out


_GLOB_ESCAPES = str.maketrans({c: "\\" + c for c in "*?[]\\()|!@+"})


def _escape_glob(s: str) -> str:
    return s.translate(_GLOB_ESCAPES)


def _plain(parts: list[Chunk]) -> Field:
    opaque = [t for k, t in parts if k in (OPAQUE, OPAQUE_Q)]
    if opaque:
        first = next(i for i, (k, _) in enumerate(parts) if k in (OPAQUE, OPAQUE_Q))
        return Field(None, reason=opaque[0], split=any(k == OPAQUE for k, _ in parts),
                     prefix="".join(t for _, t in parts[:first]))
    return Field("".join(t for _, t in parts))


def _tilde(chunks: list[Chunk], scope: Scope, assignment: bool = False) -> list[Chunk]:
    if not chunks or chunks[0][0] != LIT or not chunks[0][1].startswith("~"):
        return chunks
    head = chunks[0][1]
    end = head.find("/")
    if end < 0 and assignment:
        end = head.find(":")
    if end < 0 and len(chunks) > 1 and chunks[1][0] != LIT:
        return chunks  # ~"user" is not expanded
    user = head[1:end] if end >= 0 else head[1:]
    rest = head[end:] if end >= 0 else ""
    if user == "":
        known, home = scope.lookup("HOME")
        if not known:
            return [(OPAQUE, "the home directory is not known")] + chunks[1:]
        value = home or ""
    elif user == "+":
        if scope.cwd is None:
            return [(OPAQUE, "~+ in a directory not known statically")] + chunks[1:]
        value = scope.cwd
    elif user == "-":
        known, old = scope.lookup("OLDPWD")
        if not known or old is None:
            return [(OPAQUE, "~- (OLDPWD) is not known")] + chunks[1:]
        value = old
    else:
        value = os.path.expanduser("~" + user)
        if value.startswith("~"):
            return chunks
    return [(QUOTED, value)] + ([(LIT, rest)] if rest else []) + chunks[1:]


def _brace(chunks: list[Chunk]) -> list[list[Chunk]]:
    if not any(kind == LIT and "{" in t for kind, t in chunks):  # nothing to expand: no list of characters
        plain: list[Chunk] = []
        for kind, t in chunks:
            if kind != LIT:
                plain.append((kind, t))
            elif t and plain and plain[-1][0] == LIT:
                plain[-1] = (LIT, plain[-1][1] + t)
            elif t:
                plain.append((LIT, t))
        return [plain]
    return _brace_expand(chunks)


def _brace_expand(chunks: list[Chunk]) -> list[list[Chunk]]:
    tokens: list[Chunk] = []
    for kind, t in chunks:
        if kind == LIT:
            tokens.extend((LIT, c) for c in t)
        else:
            tokens.append((kind, t))
    out: list[list[Chunk]] = []
    for alt in _brace_tokens(tokens):
        merged: list[Chunk] = []
        for kind, t in alt:
            if merged and merged[-1][0] == kind == LIT:
                merged[-1] = (LIT, merged[-1][1] + t)
            else:
                merged.append((kind, t))
        out.append(merged)
    return out


_OPEN, _CLOSE, _COMMA = (LIT, "{"), (LIT, "}"), (LIT, ",")


def _brace_pairs(tokens: list[Chunk]) -> tuple[list[int], dict[int, int], dict[int, list[int]]]:
    """One pass: the `{` positions in order, each closed one's `}` and its own (depth 0) commas.
    A `{` is closed by the first `}` after it at its depth, as a scan from it would find."""
    opens: list[int] = []
    close: dict[int, int] = {}
    commas: dict[int, list[int]] = {}
    stack: list[int] = []
    for j, t in enumerate(tokens):
        if t == _OPEN:
            opens.append(j)
            stack.append(j)
        elif t == _CLOSE:
            if stack:
                close[stack.pop()] = j
        elif t == _COMMA and stack:
            commas.setdefault(stack[-1], []).append(j)
    return opens, close, commas


def _brace_tokens(tokens: list[Chunk]) -> list[list[Chunk]]:
    """Expand the first `{…}` that is a list or a sequence (bash's order), then the rest. Linear
    before the first expansion (a pass, not a scan from each `{`: nested braces were quadratic)."""
    opens, close, commas = _brace_pairs(tokens)
    for n, i in enumerate(opens):
        end = close.get(i)
        if end is None:
            break
        innermost = n + 1 == len(opens) or opens[n + 1] > end  # no brace inside: each token read once
        if i in commas:
            bounds = [i, *commas[i], end]
            alts = [tokens[a + 1:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        elif innermost and all(k == LIT for k, _ in tokens[i + 1:end]) and \
                (seq := _sequence("".join(t for _, t in tokens[i + 1:end]))) is not None:
            if seq == [TOO_BIG]:
                return [[(OPAQUE, "brace expansion larger than the analysis budget")]]
            alts = [[(QUOTED, s)] for s in seq]
        else:
            continue
        prefix, suffix = tokens[:i], tokens[end + 1:]
        out: list[list[Chunk]] = []
        for alt in alts:
            for rest in _brace_tokens(alt + suffix):
                out.append(prefix + rest)
                if len(out) > MAX_BRACE:
                    return [[(OPAQUE, "brace expansion larger than the analysis budget")]]
        return out
    return [tokens]


def _sequence(inner: str) -> list[str] | None:
    m = re.match(SEQUENCE, inner)
    if m is None:
        return None
    a, b, step_s = m.group(1), m.group(2), m.group(3)
    step = abs(int(step_s)) if step_s else 1
    step = step or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        x, y = int(a), int(b)
        width = max(len(a), len(b)) if (a.lstrip("-").startswith("0") and len(a.lstrip("-")) > 1) or \
            (b.lstrip("-").startswith("0") and len(b.lstrip("-")) > 1) else 0
        rng = range(x, y + 1, step) if x <= y else range(x, y - 1, -step)
        if len(rng) > MAX_BRACE:
            return [TOO_BIG]
        return [str(n).zfill(width) if n >= 0 else "-" + str(-n).zfill(width - 1) for n in rng]
    if len(a) == 1 and len(b) == 1 and not a.isdigit() and not b.isdigit():
        x, y = ord(a), ord(b)
        rng = range(x, y + 1, step) if x <= y else range(x, y - 1, -step)
        return [chr(n) for n in rng]
    return None


def _split(chunks: list[Chunk], ifs: str | None) -> list[list[Chunk]]:
    """Word splitting of unquoted expansion results on IFS; empty fields vanish unless a
    quoted part keeps them. An IFS known only at run time makes unquoted expansions opaque."""
    if ifs is None:
        chunks = [(OPAQUE, "IFS is not static, so word splitting is not known") if k == EXPANDED else (k, t)
                  for k, t in chunks]
    elif ifs == "":
        chunks = [(QUOTED, t) if k == EXPANDED else (k, t) for k, t in chunks]
    white = "".join(c for c in (ifs or "") if c in " \t\n")
    other = "".join(c for c in (ifs or "") if c not in " \t\n")
    parts = []
    if other:
        parts.append(f"[{re.escape(white)}]*[{re.escape(other)}][{re.escape(white)}]*" if white
                     else f"[{re.escape(other)}]")
    if white:
        parts.append(f"[{re.escape(white)}]+")
    separator = "|".join(parts) or "(?!)"
    fields: list[list[Chunk]] = []
    cur: list[Chunk] = []
    keep = False

    def close() -> None:
        nonlocal cur, keep
        if keep or any(t for _, t in cur) or any(k in (OPAQUE, OPAQUE_Q) for k, _ in cur):
            fields.append(cur)
        cur, keep = [], False

    for kind, t in chunks:
        if kind == ARRAY_Q:
            for n, element in enumerate(t.split("\0")):
                if n > 0:
                    close()
                keep = True
                cur.append((QUOTED, element))
            continue
        if kind != EXPANDED:
            if kind in (QUOTED, OPAQUE_Q):
                keep = True
            cur.append((kind, t))
            continue
        pieces = re.split(separator, t)
        for n, piece in enumerate(pieces):
            if n > 0:
                close()
            if piece:
                cur.append((EXPANDED, piece))
    close()
    return fields


def words_of(nodes: list[Node]) -> list[list[Node]]:
    """Adjacent syntax nodes (no blank between them) form one shell word."""
    groups: list[list[Node]] = []
    for n in nodes:
        if groups and groups[-1][-1].end_byte == n.start_byte:
            groups[-1].append(n)
        else:
            groups.append([n])
    return groups
