"""A word without a `{` skips the brace expansion's list of characters (issue 29: a 256 KiB word
cost a tuple per character) and comes out exactly as the expansion makes it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.shell import words

_CHUNK = st.tuples(st.sampled_from([words.LIT, words.QUOTED, words.EXPANDED, words.OPAQUE, words.OPAQUE_Q, words.ARRAY_Q]),
                   st.text(alphabet=st.sampled_from(list("ab,}*? $\\'")), max_size=6))


@settings(max_examples=1000, deadline=None)
@given(st.lists(_CHUNK, max_size=8))
def test_no_brace_is_the_expansion_of_nothing(chunks: list[tuple[int, str]]) -> None:
    assert words._brace(chunks) == words._brace_expand(chunks)
