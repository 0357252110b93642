"""Go regexp semantics on top of RE2 (google-re2): compile cache, Go error text, FindAll."""

from __future__ import annotations

from functools import lru_cache

import re2

from cupcake_py.host.builtins._errors import BuiltinError

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

_OPTS = re2.Options()
_OPTS.log_errors = False

# RE2 (C++) error text → Go regexp/syntax error code.
_GO_CODES = {
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid UTF-8": "invalid UTF-8",
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
}


class RegexError(Exception):
    pass


def _go_message(raw: Any) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, sep, arg = text.partition(": ")
    code = _GO_CODES.get(code, code)
    return f"error parsing regexp: {code}: `{arg}`" if sep else f"error parsing regexp: {code}"


@lru_cache(maxsize=512)
def compile_go(pattern: str) -> Any:
    """Compile with Go regexp semantics; raises RegexError with Go's message."""
    if "\\C" in pattern.replace("\\\\", ""):
        raise RegexError("error parsing regexp: invalid escape sequence: `\\C`")
    try:
        return re2.compile(pattern, _OPTS)
    except re2.error as exc:
        raise RegexError(_go_message(exc.args[0] if exc.args else exc)) from None


_UNANCHORED = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)


def is_match(rx: Any, s: str) -> bool:
    """Unanchored boolean match; skips the wrapper's offset bookkeeping when possible."""
    raw = getattr(rx, "_regexp", None)
    if raw is None or _UNANCHORED is None:
        return rx.search(s) is not None
    b = s.encode("utf-8", "surrogatepass")
    return bool(raw.Match(_UNANCHORED, b, 0, len(b))[0] != (-1, -1))


def compiled(fname: str, pattern: str) -> Any:
    try:
        return compile_go(pattern)
    except RegexError as exc:
        raise BuiltinError(f"{fname}: {exc}") from None


def find_all(rx: Any, s: str, n: int = -1) -> Iterator[Any]:
    """Go's allMatches: at most n matches (n < 0: all); no empty match right after a match."""
    pos, count, prev_end, end = 0, 0, -1, len(s)
    while (n < 0 or count < n) and pos <= end:
        m = rx.search(s, pos)
        if m is None:
            break
        a, b = m.span()
        accept = True
        if b == a:
            if a == prev_end:
                accept = False
            pos = b + 1 if b >= pos else pos + 1
        else:
            pos = b
        prev_end = b
        if accept:
            count += 1
            yield m


def expand(template: str, m: Any, groupindex: dict[str, int], ngroups: int) -> str:
    """Go's Regexp.Expand for ReplaceAllString: $1, ${1}, $name, ${name}, $$."""
    out: list[str] = []
    i, n = 0, len(template)
    while i < n:
        c = template[i]
        if c != "$" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        nxt = template[i + 1]
        if nxt == "$":
            out.append("$")
            i += 2
            continue
        if nxt == "{":
            close = template.find("}", i + 2)
            name = template[i + 2 : close] if close != -1 else ""
            if close == -1 or not name or not all(ch.isalnum() or ch == "_" for ch in name):
                out.append("$")
                i += 1
                continue
            i = close + 1
        else:
            j = i + 1
            while j < n and (template[j].isalnum() or template[j] == "_"):
                j += 1
            name = template[i + 1 : j]
            if not name:
                out.append("$")
                i += 1
                continue
            i = j
        if name.isdigit():
            k = int(name)
            if k <= ngroups:
                out.append(m.group(k) or "")
        elif name in groupindex:
            out.append(m.group(groupindex[name]) or "")
    return "".join(out)
