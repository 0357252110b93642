"""regex.* builtins with Go RE2 semantics (google-re2)."""

from __future__ import annotations

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, accepts, want_int_literal, want_str
from cupcake_py.host.builtins._re2 import RegexError, compile_go, compiled, expand, find_all, is_match
from cupcake_py.host.builtins._regex_glob import globs_intersect

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from typing import Any


@builtin("regex.match")
def regex_match(ctx: BuiltinContext, pattern: Any, value: Any) -> bool:
    rx = compiled("regex.match", want_str("regex.match", 1, pattern))
    return is_match(rx, want_str("regex.match", 2, value))


@builtin("re_match")
def re_match(ctx: BuiltinContext, pattern: Any, value: Any) -> bool:
    rx = compiled("re_match", want_str("re_match", 1, pattern))
    return is_match(rx, want_str("re_match", 2, value))


@builtin("regex.is_valid")
def regex_is_valid(ctx: BuiltinContext, pattern: Any) -> bool:
    return accepts(compile_go, pattern, RegexError)


@builtin("regex.find_n")
def find_n(ctx: BuiltinContext, pattern: Any, value: Any, number: Any) -> list[str]:
    rx = compiled("regex.find_n", want_str("regex.find_n", 1, pattern))
    s = want_str("regex.find_n", 2, value)
    return [m.group(0) for m in find_all(rx, s, want_int_literal("regex.find_n", 3, number))]


@builtin("regex.find_all_string_submatch_n")
def find_all_string_submatch_n(ctx: BuiltinContext, pattern: Any, value: Any, number: Any) -> list[list[str]]:
    f = "regex.find_all_string_submatch_n"
    rx = compiled(f, want_str(f, 1, pattern))
    s = want_str(f, 2, value)
    return [
        [m.group(0), *(g or "" for g in m.groups())] for m in find_all(rx, s, want_int_literal(f, 3, number))
    ]


@builtin("regex.split")
def regex_split(ctx: BuiltinContext, pattern: Any, value: Any) -> list[str]:
    """Go's Regexp.Split(s, -1)."""
    p = want_str("regex.split", 1, pattern)
    rx = compiled("regex.split", p)
    s = want_str("regex.split", 2, value)
    if p and not s:
        return [""]
    out: list[str] = []
    beg = end = 0
    for m in find_all(rx, s):
        end = m.start()
        if m.end() != 0:
            out.append(s[beg:end])
        beg = m.end()
    if end != len(s):
        out.append(s[beg:])
    return out


@builtin("regex.replace")
def regex_replace(ctx: BuiltinContext, s: Any, pattern: Any, value: Any) -> str:
    src = want_str("regex.replace", 1, s)
    rx = compiled("regex.replace", want_str("regex.replace", 2, pattern))
    repl = want_str("regex.replace", 3, value)
    literal = "$" not in repl
    out: list[str] = []
    last = 0
    for m in find_all(rx, src):
        out.append(src[last : m.start()])
        out.append(repl if literal else expand(repl, m, rx.groupindex, rx.groups))
        last = m.end()
    out.append(src[last:])
    return "".join(out)


def _template_regex(fname: str, template: str, start: str, end: str) -> str:
    """Build ``^...$`` from a template whose delimited parts are regexes (others literal)."""
    parts: list[str] = []
    level, idx, lit_start = 0, 0, 0
    for i, ch in enumerate(template):
        if ch == start:
            level += 1
            if level == 1:
                parts.append(re_quote(template[lit_start:i]))
                idx = i + 1
        elif ch == end:
            level -= 1
            if level == 0:
                parts.append("(" + template[idx:i] + ")")
                lit_start = i + 1
            elif level < 0:
                raise BuiltinError(f"{fname}: unbalanced braces in {template!r}")
    if level != 0:
        raise BuiltinError(f"{fname}: unbalanced braces in {template!r}")
    parts.append(re_quote(template[lit_start:]))
    return "^" + "".join(parts) + "$"


def re_quote(s: str) -> str:
    """Go's regexp.QuoteMeta."""
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$" else c for c in s)


@builtin("regex.template_match")
def template_match(ctx: BuiltinContext, template: Any, value: Any, delim_start: Any, delim_end: Any) -> bool:
    f = "regex.template_match"
    t = want_str(f, 1, template)
    s = want_str(f, 2, value)
    ds = want_str(f, 3, delim_start)
    de = want_str(f, 4, delim_end)
    if not ds or not de:
        raise BuiltinError(f"{f}: delimiters must be non-empty")
    rx = compiled(f, _template_regex(f, t, ds[0], de[0]))
    return is_match(rx, s)


@builtin("regex.globs_match")
def globs_match(ctx: BuiltinContext, glob1: Any, glob2: Any) -> bool:
    a = want_str("regex.globs_match", 1, glob1)
    b = want_str("regex.globs_match", 2, glob2)
    try:
        return globs_intersect(a, b)
    except ValueError as exc:
        raise BuiltinError(f"regex.globs_match: {exc}") from None
