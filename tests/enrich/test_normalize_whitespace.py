"""`normalize_whitespace` (enrich/shell_words.py) is linear in the command's size (issue 29: a
large command is normalised in C, without a list of its characters) and answers exactly what the
character-by-character definition below answers, for any text (hypothesis) and for the cases a
shell user writes."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cupcake_py.enrich.shell_words import normalize_whitespace


def reference(command: str) -> str:
    """The definition: a state machine over the characters (the implementation before issue 29)."""
    out: list[str] = []
    separators: set[int] = set()  # indexes in `out` of separators (not an escaped space: `\ ` stays)
    quote = ""
    escaped = False
    run = ""

    def flush() -> None:
        nonlocal run
        if run and out:
            separators.add(len(out))
            out.append("; " if "\n" in run and out[-1][-1:] not in (";", "&", "|", "(", "{") else " ")
        run = ""

    for ch in command:
        if escaped:
            escaped = False
            if ch == "\n" and not quote:
                out.pop()
                if out and len(out) - 1 in separators:
                    separators.discard(len(out) - 1)
                    run = ("\n" if out.pop() == "; " else " ") + run
                run += " "
                continue
            out.append(ch)
            continue
        if quote == "'":
            out.append(ch)
            if ch == "'":
                quote = ""
            continue
        if quote == "" and ch.isspace():
            run += ch
            continue
        flush()
        out.append(ch)
        if ch == "\\":
            escaped = True
        elif ch == quote:
            quote = ""
        elif not quote and ch in "'\"":
            quote = ch
    return "".join(out)


SHELLISH = st.text(alphabet=st.sampled_from(list("ab ;&|({}'\"\\\n\t\r\x0b\x1c\u00a0\u2028é#$")), max_size=40)


@settings(max_examples=1500, deadline=None)
@given(SHELLISH)
@example("\\ \\\n")  # an escaped space before a line continuation is an argument, kept
def test_same_answer_as_the_definition(command: str) -> None:
    assert normalize_whitespace(command) == reference(command)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_same_answer_for_any_text(command: str) -> None:
    assert normalize_whitespace(command) == reference(command)


@pytest.mark.parametrize(("command", "expected"), [
    ("  ls   -la  ", "ls -la"),
    ("echo 'a   b'  \"c   d\"", "echo 'a   b' \"c   d\""),
    ("make \\\n  all", "make all"),
    ("cd x\nrm -rf y", "cd x; rm -rf y"),
    ("a &&\n b", "a && b"),
    ("echo \"unterminated  \\", "echo \"unterminated  \\"),
    ("echo 'open   ", "echo 'open   "),
    ("echo a\\  b", "echo a\\  b"),
])
def test_cases(command: str, expected: str) -> None:
    assert normalize_whitespace(command) == expected == reference(command)


def test_a_large_command_keeps_its_text() -> None:
    word = "a" * (8 << 20)
    assert normalize_whitespace(f"  echo   {word}\n") == f"echo {word}"
    quoted = "echo \"" + "x \\\" " * 100_000 + "\""
    assert normalize_whitespace(quoted) == quoted


def _shlex_words(command: str) -> list[str]:
    import shlex

    lex = shlex.shlex(command, posix=True, punctuation_chars=";&|()<>!{}")
    lex.whitespace_split = True
    lex.commenters = ""
    return list(lex)


UNQUOTED = st.text(alphabet=st.sampled_from(list("ab ;&|(){}<>!\t\r\n\x0b#~-./*?=$é\u00a0")), max_size=40)


@settings(max_examples=1500, deadline=None)
@given(UNQUOTED)
def test_segments_without_quoting_are_shlex_segments(command: str) -> None:
    """Without quotes or backslashes the words are found in C (shlex's loop is quadratic in a
    word's length); they are shlex's words, grouped the same way."""
    from cupcake_py.enrich import shell_words

    assert shell_words._split_segments(command) == shell_words._group(_shlex_words(command))
