"""Parameter expansion (`$x`, `${x}`, `${x:-w}`, `${x#p}`, `${x/p/r}`, `${x,,}`, `${#x}`,
`${x:1:2}` …) of values known statically.

In: the expansion's source text, the scope (variables, positional parameters), a callback
returning the expanded chunks of a byte range of the operand, and whether the expansion is
inside double quotes. Out: chunks (see words.py); an opaque chunk with a reason when the
value depends on run time (unknown variable, `$?`, `$$`, `$RANDOM`, arrays, indirection to
an unknown name, transformations `@Q` …). Never raises.
"""

from __future__ import annotations

import re

from cupcake_py.shell import globbing
from cupcake_py.shell.model import decimal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cupcake_py.shell.words import Chunk, Scope

    Operand = Callable[[int, int, bool], list[Chunk]]

LIT, QUOTED, EXPANDED, OPAQUE, OPAQUE_Q, ARRAY_Q = range(6)
HEAD = (r"\$\{(#(?!\}))?(!)?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(\[[^\]]*\])?")
SIMPLE = (r"\$([A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*#?$!-])")
OPERATORS = (":-", ":=", ":+", ":?", "-", "=", "+", "?", "##", "#", "%%", "%", "//", "/#", "/%", "/",
             "^^", "^", ",,", ",", "@", ":")
RUNTIME = frozenset({"?", "$", "!", "-", "RANDOM", "SRANDOM", "LINENO", "SECONDS", "EPOCHSECONDS",
                     "EPOCHREALTIME", "BASHPID", "PPID", "_", "BASH_COMMAND", "REPLY", "COPROC"})


def _value(name: str, scope: Scope) -> tuple[bool, str | None, str]:
    """(known, value or None when unset, reason when not known)."""
    if name in RUNTIME:
        return False, None, f"${name} is known only at run time"
    position = decimal(name)  # $1, and ${01} or ${010}: bash reads the digits as a decimal number
    if position == 0:  # $0, ${00}
        arg0 = scope.program_name()
        return (True, arg0, "") if arg0 is not None else (False, None, "$0 is known only at run time")
    if name in ("@", "*", "#") or position is not None:
        args = scope.positional()
        if args is None:
            return False, None, "positional parameters are not known"
        if name == "#":
            return True, str(len(args)), ""
        if name in ("@", "*"):
            return True, " ".join(args), ""
        assert position is not None
        return True, args[position - 1] if position <= len(args) else None, ""
    known, value = scope.lookup(name)
    if not known:
        return False, None, f"${name} has no value known statically (not set in the line, or set from run-time data)"
    return True, value, ""


def _pattern(chunks: list[Chunk]) -> str | None:
    if any(k in (OPAQUE, OPAQUE_Q) for k, _ in chunks):
        return None
    return "".join(t if k in (LIT, EXPANDED) else "".join("\\" + c if c in "*?[]\\" else c for c in t)
                   for k, t in chunks)


def _trim(value: str, pattern: str, op: str) -> str:
    rx = re.compile(globbing.translate(pattern, slash=True) + r"\Z", re.S)
    spans = range(len(value) + 1)
    if op in ("#", "##"):
        order = spans if op == "#" else reversed(spans)
        for n in order:
            if rx.match(value[:n]):
                return value[n:]
        return value
    order = reversed(spans) if op == "%" else spans
    for n in order:
        if rx.match(value[n:]):
            return value[:n]
    return value


def _replace(value: str, pattern: str, rep: str, op: str) -> str:
    body = globbing.translate(pattern, slash=True)
    if not pattern:
        return value
    if op == "/#":
        return re.sub("^(?:" + body + ")", lambda _m: rep, value, count=1, flags=re.S)
    if op == "/%":
        m = None
        for n in range(len(value) + 1):
            if re.fullmatch(body, value[n:], re.S):
                m = n
                break
        return value if m is None else value[:m] + rep
    return re.sub(body, lambda _m: rep, value, count=0 if op == "//" else 1, flags=re.S)


def _split_slash(raw: str, start: int, end: int) -> int:
    """Index of the first unquoted '/' in raw[start:end] (end when none)."""
    quote = ""
    i = start
    while i < end:
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "/":
            return i
        i += 1
    return end


def _indexed(name: str, index: str, scope: Scope) -> tuple[bool, str | None, str]:
    """${a[N]} (N a static integer, negative from the end)."""
    items = scope.array(name)
    if items is None:
        return False, None, f"array {name} is not known statically"
    magnitude = decimal(index[1:] if index.startswith("-") else index)
    if magnitude is None:
        return False, None, f"array index {index!r} is not static"
    i = -magnitude if index.startswith("-") else magnitude
    if i < 0:
        i += len(items)
    return True, (items[i] if 0 <= i < len(items) else None), ""


def _element(raw: str, end: int, length: str | None, indirect: str | None, name: str, index: str, scope: Scope,
             quoted: bool) -> list[Chunk] | None:
    """${a[@]}, ${a[*]}, ${#a[@]}; None when the subscript is a single element."""
    if index not in ("@", "*"):
        return None
    items = scope.array(name)
    opaque = OPAQUE_Q if quoted else OPAQUE
    if items is None or indirect or raw[end:] != "}":
        return [(opaque, f"array expansion {raw[:60]!r} is not static")]
    if length:
        return [(QUOTED if quoted else EXPANDED, str(len(items)))]
    if not items:
        return [(EXPANDED, "")]
    if quoted and index == "@":
        return [(ARRAY_Q, "\0".join(items))]
    return [(QUOTED if quoted else EXPANDED, " ".join(items))]


def _positional_list(name: str, scope: Scope, quoted: bool, length: bool) -> list[Chunk]:
    """$@ / $* as bash expands them: "$@" is one word per parameter (none when there are none),
    "$*" one word joined by spaces, unquoted both are split; ${#@} is their number."""
    args = scope.positional()
    if args is None:
        return [(OPAQUE_Q if quoted else OPAQUE, "positional parameters are not known")]
    if length:
        return [(QUOTED if quoted else EXPANDED, str(len(args)))]
    if quoted and name == "@":
        return [(ARRAY_Q, "\0".join(args))] if args else [(EXPANDED, "")]
    return [(QUOTED if quoted else EXPANDED, " ".join(args))]


def expand_parameter(raw: str, scope: Scope, operand: Operand, quoted: bool) -> list[Chunk]:
    kind = QUOTED if quoted else EXPANDED
    opaque = OPAQUE_Q if quoted else OPAQUE

    def out(value: str) -> list[Chunk]:
        return [(kind, value)]

    if not raw.startswith("${"):
        m = re.fullmatch(SIMPLE, raw)
        if m is None:
            return [(opaque, f"expansion {raw[:60]!r} is not understood")]
        if m.group(1) in ("@", "*"):
            return _positional_list(m.group(1), scope, quoted, False)
        known, value, why = _value(m.group(1), scope)
        return out(value or "") if known else [(opaque, why)]
    m = re.match(HEAD, raw)
    if m is None:
        return [(opaque, f"parameter expansion {raw[:60]!r} is not understood")]
    length, indirect, name, subscript = m.group(1), m.group(2), m.group(3), m.group(4)
    if name in ("@", "*") and subscript is None:
        if indirect or m.end() != len(raw) - 1:  # ${@:1:2}, ${@#x}, ${@^^} act on each parameter
            return [(opaque, f"{raw[:60]!r}: operations on the positional parameters are not evaluated")]
        return _positional_list(name, scope, quoted, bool(length))
    if subscript is not None:
        got = _element(raw, m.end(), length, indirect, name, subscript[1:-1], scope, quoted)
        if got is not None:
            return got
        known, value, why = _indexed(name, subscript[1:-1], scope)
        if not known or indirect:
            return [(opaque, why or f"array expansion {raw[:60]!r} is not static")]
    else:
        known, value, why = _value(name, scope)
        if indirect:
            if not known or value is None:
                return [(opaque, why or f"indirect expansion {raw[:60]!r} through an unset name")]
            known, value, why = _value(value, scope) if re.fullmatch(r"[A-Za-z_]\w*", value) else \
                (False, None, "bad indirection")
    rest_start, end = m.end(), len(raw) - 1
    if rest_start == end:
        if length:
            return out(str(len(value or ""))) if known else [(opaque, why)]
        return out(value or "") if known else [(opaque, why)]
    if length:
        return [(opaque, f"parameter expansion {raw[:60]!r} is not understood")]
    rest = raw[rest_start:end]
    op = next((o for o in OPERATORS if rest.startswith(o)), None)
    if op is None:
        return [(opaque, f"parameter expansion {raw[:60]!r} is not understood")]
    arg_start = rest_start + len(op)
    if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
        if not known:
            operand(arg_start, end, quoted)  # its substitutions may run: analyse them
            if op in (":=", "="):
                scope.invalidate(name)
            return [(opaque, why)]
        missing = value is None or (op.startswith(":") and value == "")
        if op in (":+", "+"):
            return operand(arg_start, end, quoted) if not missing else out("")
        if missing:
            if op in (":=", "="):
                scope.invalidate(name)
            if op in (":?", "?"):
                return [(opaque, f"{raw[:60]!r} stops the shell when {name} is unset")]
            return operand(arg_start, end, quoted)
        return out(value or "")
    if not known:
        return [(opaque, why)]
    value = value or ""
    if op in ("#", "##", "%", "%%"):
        pattern = _pattern(operand(arg_start, end, False))
        if pattern is None:
            return [(opaque, f"the pattern of {raw[:60]!r} is not static")]
        return out(_trim(value, pattern, op))
    if op in ("/", "//", "/#", "/%"):
        mid = _split_slash(raw, arg_start, end)
        pattern = _pattern(operand(arg_start, mid, False))
        rep_chunks = operand(mid + 1, end, True) if mid < end else []
        if pattern is None or any(k in (OPAQUE, OPAQUE_Q) for k, _ in rep_chunks):
            return [(opaque, f"the pattern of {raw[:60]!r} is not static")]
        return out(_replace(value, pattern, "".join(t for _, t in rep_chunks), op))
    if op in ("^^", "^", ",,", ","):
        if arg_start != end:
            return [(opaque, f"case pattern of {raw[:60]!r} is not evaluated")]
        if op == "^^":
            return out(value.upper())
        if op == ",,":
            return out(value.lower())
        head = value[:1].upper() if op == "^" else value[:1].lower()
        return out(head + value[1:])
    if op == ":":
        sub = re.fullmatch(r"\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?", raw[arg_start:end])
        if sub is None:
            return [(opaque, f"substring bounds of {raw[:60]!r} are not static")]
        off = int(sub.group(1))
        off = max(0, len(value) + off) if off < 0 else off
        if sub.group(2) is None:
            return out(value[off:])
        ln = int(sub.group(2))
        return out(value[off:off + ln] if ln >= 0 else value[off:len(value) + ln])
    return [(opaque, f"transformation {raw[:60]!r} is not evaluated")]
