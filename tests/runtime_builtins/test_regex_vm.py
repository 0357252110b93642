"""The native matcher (regex_vm.c running programs from wasm/regex_prog.py) answers exactly
like the host's regex.match (google-re2): random patterns from the subset grammar and random
subjects (newlines, multi-byte characters, case-fold look-alikes); random metacharacter soup
must either stay on the host or agree with RE2; patterns RE2 rejects are never native; a
non-string or invalid-UTF-8 subject gets no native answer (the host decides)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.host.builtins._re2 import RegexError, compile_go, is_match
from cupcake_py.wasm.regex_prog import compile_pattern

from .harness import Runtime

SUBJECT_CHARS = "abcx_0 1\n\t-.é€😀KſA/;|"
LITERALS = ["a", "b", "c", "x", "é", "€", "😀", " ", "_", "0", "/", ";", "K", "ſ", "A"]
ESCAPES = ["\\.", "\\-", "\\n", "\\t", "\\|", "\\(", "\\[", "\\*", "\\$", "\\^", "\\/"]
PERL = ["\\d", "\\w", "\\s", "\\D", "\\W", "\\S"]
CLASS_MEMBERS = ["a", "b-d", "x", "é", "€-😀", "\\d", "\\w", "\\s", "\\S", "0-9", "A-Z", "\\n", "\\]", "\\-", ".", "|", " "]
ANCHORS = ["^", "$", "\\A", "\\z", "\\b"]
QUANTS = ["*", "+", "?", "{2}", "{0,1}", "{1,3}", "{2,}", "*?", "+?", "??", "{1,2}?"]


def _host(pattern: str, subject: str) -> bool | None:
    try:
        return is_match(compile_go(pattern), subject)
    except RegexError:
        return None


def _native(rt: Runtime, program: bytes, subject: str) -> bool | None:
    rt.reset()
    prog = rt.write(program)
    assert prog % 4 == 0
    subj = rt.string(subject.encode())
    addr = rt._fn("opa_regex_vm_match")(prog, subj)
    return None if addr == 0 else bool(rt.dump(addr))


def _class() -> st.SearchStrategy[str]:
    return st.builds(
        lambda neg, members: "[" + ("^" if neg else "") + "".join(members) + "]",
        st.booleans(),
        st.lists(st.sampled_from(CLASS_MEMBERS), min_size=1, max_size=4),
    )


LEAF = st.one_of(
    st.sampled_from(LITERALS), st.sampled_from(ESCAPES), st.sampled_from(PERL), st.just("."),
    st.sampled_from(ANCHORS), _class(),
)  # fmt: skip


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(inner, min_size=2, max_size=4).map("".join),
        st.lists(inner, min_size=2, max_size=3).map("|".join),
        st.builds(lambda x, cap: ("(" if cap else "(?:") + x + ")", inner, st.booleans()),
        st.builds(lambda x, q: "(" + x + ")" + q, inner, st.sampled_from(QUANTS)),
        st.builds(lambda x, q: x + q, st.sampled_from(LITERALS + PERL + ["."]), st.sampled_from(QUANTS)),
    )


PATTERNS = st.builds(lambda fold, p: ("(?i)" if fold else "") + p, st.booleans(),
                     st.recursive(LEAF, _extend, max_leaves=10))
SUBJECTS = st.text(alphabet=SUBJECT_CHARS, max_size=12)
SOUP = st.one_of(
    st.text(alphabet="ab.|()[]^$*+?{}-,\\dwsbAzBQ1:é", max_size=10),
    st.text(alphabet="kKsSa.|()[]^*?-\\wW", max_size=8).map(lambda p: "(?i)" + p),
)
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(pattern=PATTERNS, subjects=st.lists(SUBJECTS, min_size=1, max_size=6))
def test_subset_patterns_match_like_re2(rt: Runtime, pattern: str, subjects: list[str]) -> None:
    program = compile_pattern(pattern)
    if _host(pattern, "") is None:
        assert program is None, f"RE2 rejects {pattern!r} but it compiled natively"
        return
    if pattern.startswith("(?i)") and not pattern.isascii():
        assert program is None  # case folding beyond ASCII stays on the host
        return
    assert program is not None, f"subset pattern {pattern!r} is not native"
    for s in subjects:
        assert _native(rt, program, s) == _host(pattern, s), (pattern, s)


@SETTINGS
@given(pattern=SOUP, subjects=st.lists(SUBJECTS, min_size=1, max_size=4))
def test_metacharacter_soup_is_native_only_when_re2_agrees(rt: Runtime, pattern: str, subjects: list[str]) -> None:
    program = compile_pattern(pattern)
    if program is None:
        return
    assert _host(pattern, "") is not None, f"RE2 rejects {pattern!r} but it compiled natively"
    for s in subjects:
        assert _native(rt, program, s) == _host(pattern, s), (pattern, s)


@pytest.mark.parametrize(
    ("pattern", "subject", "want"),
    [
        (r"(^|[\s;&|])tool12\s+(-f|--force)(\s|$)", "ls; tool12 --force x", True),
        (r"(^|[\s;&|])tool12\s+(-f|--force)(\s|$)", "xtool12 -f", False),
        (r"(^|/)key3\.(pem|der)$", "/etc/key3.pem", True),
        (r"(^|/)key3\.(pem|der)$", "/etc/key3.pem\n", False),  # $ is end of text only
        ("a.c", "a\nc", False),  # . never matches a newline
        ("a.c", "a😀c", True),  # . consumes a whole code point
        ("^[^a]$", "é", True),
        ("^[^a]$", "\n", True),  # negated classes do match a newline
        (r"\bé", " é", False),  # \b is ASCII: é is not a word character
        (r"x\b", "xé", True),
        ("^$", "", True),
        ("", "anything", True),
        ("(a*)*$", "b", True),
        ("a{3,}", "aa", False),
        (r"\s", "\x0b", False),  # RE2's \s has no vertical tab
        ("(?i)k", "\u212a", True),  # RE2 folds k with the Kelvin sign
        ("(?i)[^s]", "\u017f", False),  # and s with the long s
        (r"(?i)\W", "\u212a", False),  # a negated Perl class under (?i) excludes the folds too
        ("(?i)TOOL[0-9]", "ls; tool7", True),
    ],
)
def test_known_answers(rt: Runtime, pattern: str, subject: str, want: bool) -> None:
    program = compile_pattern(pattern)
    assert program is not None
    assert _host(pattern, subject) is want
    assert _native(rt, program, subject) is want


@pytest.mark.parametrize(
    "pattern",
    ["(?i)é", "a(?i)b", "(?i:a)", "(?s).", r"\pL", "[[:alpha:]]", r"\B", r"\1", r"\Qa\E", "a**", "x{1001}", "(a{2}){501}", "a{", "(",
     "(?P<n>a)", r"\C", "[a-b-c]", "[z-a]", r"\x41", "a{,3}", r"\_", "*a", r"\Z"],
)  # fmt: skip
def test_outside_the_subset_stays_on_the_host(pattern: str) -> None:
    assert compile_pattern(pattern) is None


def test_required_literal_is_in_the_program() -> None:
    program = compile_pattern(r"(^|[\s;&|])tool12\s+(-f|--force)(\s|$)")
    assert program is not None
    n_inst, n_ranges, lit_len, flags = struct.unpack_from("<4I", program)
    assert program[16 : 16 + lit_len] == b"tool12"
    assert flags == 0
    assert struct.unpack_from("<4I", compile_pattern("^ab|^c") or b"")[3] == 1  # anchored


def test_no_native_answer_for_non_strings_or_invalid_utf8(rt: Runtime) -> None:
    program = compile_pattern("a")
    assert program is not None
    rt.reset()
    prog = rt.write(program)
    for value in ("5", "null", '["a"]', '{"a": 1}', "true", '{"a"}'):
        assert rt._fn("opa_regex_vm_match")(prog, rt.parse(value)) == 0
    for raw in (b"a\xff", b"a\xed\xa0\x80", b"a\xc0\x80", b"\xe2\x82"):
        assert rt._fn("opa_regex_vm_match")(prog, rt.string(raw)) == 0


def test_subjects_too_long_for_the_program_go_to_the_host(rt: Runtime) -> None:
    program = compile_pattern("x(a|b|c){1,100}y")
    assert program is not None
    n_inst = struct.unpack_from("<I", program)[0]
    short, long = "x" + "a" * 100 + "y", "x" + "a" * ((1 << 24) // n_inst) + "y"
    assert _native(rt, program, short) is True
    assert _native(rt, program, long) is None
    assert _native(rt, program, "b" * len(long)) is False  # no "x" or "y": the prefilter answers


def test_long_subjects_and_programs_stay_linear(rt: Runtime) -> None:
    pattern = "(a|aa)*(b|c){2,40}x"
    program = compile_pattern(pattern)
    assert program is not None
    for s in ("a" * 5000 + "b" * 30 + "x", "a" * 5000 + "b" * 30, "x" * 3000):
        assert _native(rt, program, s) == _host(pattern, s)
