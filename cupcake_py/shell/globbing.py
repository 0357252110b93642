"""Bash glob patterns: translation to regular expressions and bounded expansion on disk.

In: a pattern in which glob characters are active unless backslash-escaped (`\\*` is a
literal star), and the directory relative patterns start from. Out: the sorted matches, the
way bash (no dotglob, no nullglob, globskipdots) lists them, and whether a bound (matches,
directories scanned: work, never time) cut the listing short, and how many directories it listed. Extglob forms `?( ) *( ) +( ) @( ) !( )`
are understood. Unreadable directories contribute no matches (as in bash).
Hand-written because `fnmatch`/`glob` follow Python rules (`[^..]` is literal there, no
extglob, no escaped metacharacters) and pull `functools` onto the eval path.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

GLOB_START = frozenset("*?[")
EXTGLOB = frozenset("?*+@!")
CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
           "space": r"\s", "xdigit": "0-9a-fA-F", "punct": r"!-/:-@\[-`{-~", "word": r"\w", "blank": r" \t"}


# Escaped pairs and characters that start no glob, possessively (no backtracking), then a glob start.
_STARTS, _EXT = re.escape("".join(sorted(GLOB_START))), re.escape("".join(sorted(EXTGLOB - GLOB_START)))
_TO_FIRST_GLOB = re.compile(rf"(?:[^\\{_STARTS}{_EXT}]++|\\.?|[{_EXT}](?!\())*+(?:[{_STARTS}]|[{_EXT}]\()", re.DOTALL)
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def has_glob(pattern: str) -> bool:
    """True when an unescaped glob character (or extglob group) is in `pattern` (one C scan)."""
    return _TO_FIRST_GLOB.match(pattern) is not None


def unescape(pattern: str) -> str:
    """The literal text of a pattern (what bash passes on when nothing matches)."""
    return "".join(_ESCAPED.split(pattern)) if "\\" in pattern else pattern


def _bracket(pattern: str, i: int) -> tuple[str, int] | None:
    """The regex class for the bracket expression starting at pattern[i] == '[', and the index
    after it; None when it is not closed (then '[' is literal)."""
    j = i + 1
    negate = False
    if j < len(pattern) and pattern[j] in "!^":
        negate = True
        j += 1
    parts: list[str] = []
    first = True
    while j < len(pattern):
        c = pattern[j]
        if c == "]" and not first:
            body = "".join(parts) or "^\\s\\S"
            return ("[^" if negate else "[") + body + "]", j + 1
        first = False
        if c == "[" and pattern[j + 1:j + 2] == ":":
            end = pattern.find(":]", j + 2)
            if end > 0 and pattern[j + 2:end] in CLASSES:
                parts.append(CLASSES[pattern[j + 2:end]])
                j = end + 2
                continue
        if c == "\\" and j + 1 < len(pattern):
            parts.append(re.escape(pattern[j + 1]))
            j += 2
            continue
        if c == "-" and parts and j + 1 < len(pattern) and pattern[j + 1] != "]":
            parts.append("-")
            j += 1
            continue
        parts.append("\\" + c if c in "\\^[]-" else c)
        j += 1
    return None


def _unescaped(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, character, extglob group depth after it) of every character of `text` from
    `start` that no backslash escapes (the depth counts open parentheses, never below 0)."""
    depth, j = 0, start
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        yield j, c, depth
        j += 1


def _group_end(pattern: str, i: int) -> int:
    """Index of the ')' closing the extglob group opened at pattern[i] == '(' (-1: none)."""
    return next((j for j, c, depth in _unescaped(pattern, i) if c == ")" and depth == 0), -1)


def _split_top(text: str, sep: str) -> list[str]:
    """`text` split on `sep` outside extglob groups (parentheses); a backslash escapes the
    next character."""
    parts, start = [], 0
    for j, c, depth in _unescaped(text):
        if c == sep and depth == 0:
            parts.append(text[start:j])
            start = j + 1
    parts.append(text[start:])
    return parts


def _split_alternatives(body: str) -> list[str]:
    return _split_top(body, "|")


def translate(pattern: str, *, slash: bool = False) -> str:
    """Regex source for a glob. `slash`: `*` and `?` may match '/' (parameter expansion
    patterns); otherwise they match within one path component."""
    any_char = "." if slash else "[^/]"
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c in EXTGLOB and pattern[i + 1:i + 2] == "(":
            end = _group_end(pattern, i + 1)
            if end > 0:
                alts = "|".join(translate(a, slash=slash) for a in _split_alternatives(pattern[i + 2:end]))
                group = f"(?:{alts})"
                if c == "!":
                    out.append(f"(?!(?:{alts})$){any_char}*")
                else:
                    out.append({"?": group + "?", "*": group + "*", "+": group + "+", "@": group}[c])
                i = end + 1
                continue
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c == "*":
            out.append(any_char + "*")
            i += 1
        elif c == "?":
            out.append(any_char)
            i += 1
        elif c == "[":
            got = _bracket(pattern, i)
            if got is None:
                out.append("\\[")
                i += 1
            else:
                out.append(got[0])
                i = got[1]
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _components(pattern: str) -> list[str]:
    """Split on '/' outside extglob groups."""
    return _split_top(pattern, "/")


class Expansion:
    __slots__ = ("matches", "truncated", "listed")

    def __init__(self, matches: list[str], truncated: bool, listed: int) -> None:
        self.matches = matches
        self.truncated = truncated
        self.listed = listed  # directories listed (counted against the analysis's listing budget)


def expand(pattern: str, cwd: str, *, max_matches: int, max_dirs: int,
           options: frozenset[str] = frozenset()) -> Expansion:
    """The paths `pattern` matches (as bash prints them: relative stays relative). `options`:
    the shopt settings in force (dotglob, globstar, nocaseglob)."""
    dotglob = "dotglob" in options
    flags = re.S | (re.I if "nocaseglob" in options else 0)
    absolute = pattern.startswith("/")
    comps = _components(pattern[1:] if absolute else pattern)
    # (text so far as bash prints it, directory on disk)
    current: list[tuple[str, str]] = [("/" if absolute else "", "/" if absolute else cwd)]
    scanned = 0
    truncated = False
    for n, comp in enumerate(comps):
        last = n == len(comps) - 1
        nxt: list[tuple[str, str]] = []
        if comp == "**" and "globstar" in options:
            for shown, disk in current:
                found, cut = _tree(shown, disk, dotglob, max_dirs - scanned, with_files=last)
                scanned += len(found)
                truncated = truncated or cut
                nxt.extend(found)
        elif not has_glob(comp):
            lit = unescape(comp)
            for shown, disk in current:
                path = os.path.join(disk, lit)
                if last and comp == "":
                    nxt.append((shown, disk))
                elif last or os.path.isdir(path):
                    if last and not os.path.lexists(path):
                        continue
                    nxt.append((_join(shown, lit), path))
        else:
            rx = re.compile(translate(comp) + r"\Z", flags)
            dot_ok = dotglob or unescape(comp[:1]) == "." or comp.startswith("\\.")
            for shown, disk in current:
                scanned += 1
                if scanned > max_dirs:
                    truncated = True
                    break
                for name in _listdir(disk):
                    if name.startswith(".") and not dot_ok:
                        continue
                    if rx.match(name):
                        path = os.path.join(disk, name)
                        if last or os.path.isdir(path):
                            nxt.append((_join(shown, name), path))
                    if len(nxt) > max_matches:
                        truncated = True
                        break
        current = nxt
        if not current:
            break
    matches = sorted(shown for shown, _ in current)
    return Expansion(matches[:max_matches], truncated or len(matches) > max_matches, scanned)


def _tree(shown: str, disk: str, dotglob: bool, budget: int,
          with_files: bool) -> tuple[list[tuple[str, str]], bool]:
    """`**` (globstar): the directory itself and everything below it (files only when `**`
    is the last component), breadth first within the budget."""
    out: list[tuple[str, str]] = [(shown, disk)] if not with_files or shown else []
    queue = [(shown, disk)]
    listed = 0
    while queue:
        s, d = queue.pop(0)
        listed += 1
        if listed > budget:
            return out, True
        for name in _listdir(d):
            if name.startswith(".") and not dotglob:
                continue
            path = os.path.join(d, name)
            is_dir = os.path.isdir(path) and not os.path.islink(path)
            if is_dir:
                queue.append((_join(s, name), path))
            if is_dir or with_files:
                out.append((_join(s, name), path))
    return out, False


def _join(shown: str, name: str) -> str:
    if not shown:
        return name
    return shown + name if shown.endswith("/") else shown + "/" + name


def _listdir(path: str) -> Iterator[str]:
    try:
        with os.scandir(path) as it:
            names = sorted(e.name for e in it)
    except OSError:  # bash lists nothing from a directory it cannot read; no match is no effect
        return iter(())
    return iter(names)


def matches(pattern: str, text: str) -> bool:
    """Whole-string match of a pattern whose `*` crosses '/' (case patterns, [[ == ]])."""
    return re.match(translate(pattern, slash=True) + r"\Z", text, re.S) is not None
