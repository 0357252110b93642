"""The escape handling of word expansion and globbing runs as C regex scans, not a Python step per
character (a 1 MB backslash-heavy command spent most of its analysis there), with exactly the
results of the character loops they replace (kept below as the oracles)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.shell import globbing, words
from cupcake_py.shell.words import DQ_ESCAPABLE, LIT, QUOTED

Chunk = tuple[int, str]
TEXT = st.text(alphabet=st.sampled_from(list("\\\n\"$`'*?[]()|!@+ab é")), max_size=30)


def unquoted_reference(raw: str) -> list[Chunk]:
    out: list[Chunk] = []
    buf: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            if buf:
                out.append((LIT, "".join(buf)))
                buf = []
            if raw[i + 1] != "\n":
                out.append((QUOTED, raw[i + 1]))
            i += 2
            continue
        buf.append(c)
        i += 1
    if buf:
        out.append((LIT, "".join(buf)))
    return out


def double_quoted_reference(raw: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw) and raw[i + 1] in DQ_ESCAPABLE:
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def has_glob_reference(pattern: str) -> bool:
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c in "*?[" or (c in "?*+@!" and pattern[i + 1:i + 2] == "("):
            return True
        i += 1
    return False


def unescape_reference(pattern: str) -> str:
    out = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(pattern[i + 1])
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


@settings(max_examples=2000, deadline=None)
@given(TEXT)
def test_the_same_results_as_the_character_loops(text: str) -> None:
    assert words._unquoted(text) == unquoted_reference(text)
    assert words._double_quoted(text) == double_quoted_reference(text)
    assert globbing.has_glob(text) == has_glob_reference(text)
    assert globbing.unescape(text) == unescape_reference(text)
    assert words._escape_glob(text) == "".join("\\" + c if c in "*?[]\\()|!@+" else c for c in text)
    assert globbing.unescape(words._escape_glob(text)) == text
    assert not globbing.has_glob(words._escape_glob(text))
