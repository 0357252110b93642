"""Brace expansion finds each `{`'s closing `}` and commas in one pass (nested braces and many
plain `{x}` groups were quadratic: 8,000 nested braces took 44 s) and expands exactly as the scan
from each `{` did (`reference` below, the former code, kept here as the oracle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.shell import words
from cupcake_py.shell.words import LIT, MAX_BRACE, OPAQUE, QUOTED, TOO_BIG
from tests.call_count import calls

Chunk = tuple[int, str]


def reference(tokens: list[Chunk]) -> list[list[Chunk]]:
    for i, tok in enumerate(tokens):
        if tok != (LIT, "{"):
            continue
        depth, commas, close = 0, [], -1
        for j in range(i + 1, len(tokens)):
            t = tokens[j]
            if t == (LIT, "{"):
                depth += 1
            elif t == (LIT, "}"):
                if depth == 0:
                    close = j
                    break
                depth -= 1
            elif t == (LIT, ",") and depth == 0:
                commas.append(j)
        if close < 0:
            break
        inner = tokens[i + 1:close]
        prefix, suffix = tokens[:i], tokens[close + 1:]
        if commas:
            bounds = [i] + commas + [close]
            alts = [tokens[a + 1:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        elif all(k == LIT for k, _ in inner) and (seq := words._sequence("".join(t for _, t in inner))) is not None:
            if seq == [TOO_BIG]:
                return [[(OPAQUE, "brace expansion larger than the analysis budget")]]
            alts = [[(QUOTED, s)] for s in seq]
        else:
            continue
        out: list[list[Chunk]] = []
        for alt in alts:
            for rest in reference(alt + suffix):
                out.append(prefix + rest)
                if len(out) > MAX_BRACE:
                    return [[(OPAQUE, "brace expansion larger than the analysis budget")]]
        return out
    return [tokens]


TOKEN = st.one_of(st.sampled_from([(LIT, c) for c in "{{{}}},,a1.-z"]),
                  st.tuples(st.sampled_from([QUOTED, OPAQUE]), st.sampled_from(["{", "}", ",", "x"])))


@settings(max_examples=1200, deadline=None)
@given(st.lists(TOKEN, max_size=24))
def test_the_same_expansion_as_a_scan_from_each_brace(tokens: list[Chunk]) -> None:
    assert words._brace_tokens(tokens) == reference(tokens)


def test_sequences_and_lists_still_expand() -> None:
    def lit(s: str) -> list[Chunk]:
        return [(LIT, c) for c in s]

    got = words._brace_tokens(lit("a{1..3}b{x,{y,z}}"))
    texts = ["".join(t for _, t in alt) for alt in got]
    assert texts == [f"a{n}b{w}" for n in "123" for w in "xyz"]


def test_nested_braces_cost_linear_work() -> None:
    def run(n: int) -> Callable[[], Any]:
        tokens = [(LIT, "{")] * n + [(LIT, "1")] + [(LIT, "}")] * n
        return lambda: words._brace_tokens(tokens)

    small, big = calls(run(500)), calls(run(2000))
    assert big <= 4 * 1.5 * small, (small, big)  # 4x the braces; the scan from each `{` made 16x
