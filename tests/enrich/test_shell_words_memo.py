"""enrich/shell_words.segments remembers its answers (text only): the same answers as a fresh split,
lists each caller may change without touching another caller's, a bounded memo."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.enrich import shell_words


@given(st.text(alphabet="ab ;&|()<>'\"\\$-./", max_size=40))
@settings(max_examples=200, deadline=None)
def test_remembered_answers_equal_fresh_ones(command: str) -> None:
    first = shell_words.segments(command)
    assert first == shell_words._split_segments(command)
    assert shell_words.segments(command) == first


def test_callers_get_their_own_lists() -> None:
    got = shell_words.segments("cd /tmp && rm -rf x")
    got[0].append("evil")
    got.append(["more"])
    assert shell_words.segments("cd /tmp && rm -rf x") == [["cd", "/tmp"], ["rm", "-rf", "x"]]


def test_the_memo_is_bounded() -> None:
    for i in range(shell_words.MAX_SEGMENT_MEMO * 3):
        shell_words.segments(f"echo {i}")
    assert len(shell_words._SEGMENTS) <= shell_words.MAX_SEGMENT_MEMO
