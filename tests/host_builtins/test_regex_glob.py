"""regex.* and glob.* with Go RE2 / gobwas semantics (incl. where Python's `re` differs)."""

from __future__ import annotations

import pytest

from tests.host_builtins.calls import call, fails

# RE2 rejects what Python's re accepts (backreferences, lookarounds, possessive/atomic groups, \C) ...
RE2_INVALID = [
    r"(a)\1",
    r"(?=a)",
    r"(?!a)",
    r"(?<=a)b",
    r"(?<!a)b",
    r"a++",
    r"(?>a)",
    r"\C",
    "a{1001}",
    "[",
    "$^[[[",
]
# ... and accepts what Python's re rejects or treats differently.
RE2_VALID = [r"\pL+", r"[[:alpha:]]", r"(?P<n>a)", r"(?U)a+", r"\Qa.b\E", r"a\z", r"(?i)A", r"\x{41}"]


@pytest.mark.parametrize("pattern", RE2_INVALID)
def test_invalid_under_re2(pattern: str) -> None:
    assert call("regex.is_valid", pattern) is False
    msg = fails("regex.match", pattern, "a", match="error parsing regexp")
    assert msg.startswith("regex.match: ")


@pytest.mark.parametrize("pattern", RE2_VALID)
def test_valid_under_re2(pattern: str) -> None:
    assert call("regex.is_valid", pattern) is True


@pytest.mark.parametrize(
    ("name", "args", "want"),
    [
        ("regex.match", (r"^[a-z]+\[[0-9]+\]$", "foo[1]"), True),
        ("re_match", ("^$", "x"), False),
        ("regex.match", (r"\Qa.b\E", "a.b"), True),
        ("regex.match", (r"\Qa.b\E", "axb"), False),
        ("regex.match", (r"(?U)a+", "aaa"), True),
        ("regex.match", (r"\bé", "xé"), True),  # \b is ASCII-only in RE2 (Python: no match)
        ("regex.match", (r"a\z", "a\n"), False),  # \z: absolute end (Python has no \z before 3.14)
        ("regex.match", (r"a$", "a\n"), False),  # $ without (?m) is end of text in RE2; Python matches
        ("regex.is_valid", (10,), False),
        ("regex.find_n", ("a.", "paranormal", -1), ["ar", "an", "al"]),
        ("regex.find_n", ("a.", "paranormal", 2), ["ar", "an"]),
        ("regex.find_n", ("a*", "baaac", -1), ["", "aaa", ""]),  # Go drops empty match after a match
        (
            "regex.find_all_string_submatch_n",
            ("a(x*)b(y)?", "-ab-axxb-", -1),
            [["ab", "", ""], ["axxb", "xx", ""]],
        ),
        ("regex.split", ("a", "banana"), ["b", "n", "n", ""]),
        ("regex.split", ("", "abc"), ["a", "b", "c"]),
        ("regex.split", ("x", ""), [""]),
        ("regex.split", ("^[a-z ]+$", "foo bar"), ["", ""]),
        ("regex.replace", ("foo", "(foo)", "$1$1"), "foofoo"),
        ("regex.replace", ("ab", "(?P<x>a)", "[${x}]"), "[a]b"),
        ("regex.replace", ("ab", "(a)", "$1x"), "b"),  # Go: $1x names group "1x" → empty
        ("regex.replace", ("ab", "a", "$$"), "$b"),
        ("regex.replace", ("-wy-wxxy-", "w(x*)y", "0"), "-0-0-"),
        ("regex.template_match", ("urn:foo:{.*}", "urn:foo:bar:baz", "{", "}"), True),
        ("regex.template_match", ("urn:foo.bar:{[a-z]+}", "urn:fooxbar:baz", "{", "}"), False),
        ("regex.globs_match", ("a.a.[0-9]+z", ".b.b2359825792*594823z"), True),
        ("regex.globs_match", ("[a-z]+", "[0-9]*"), False),  # "" is not in [a-z]+
        ("regex.globs_match", ("[a-z]*", "[0-9]*"), True),  # both accept ""
        ("regex.globs_match", ("[a-z]+", "[0-9]+"), False),
        ("regex.globs_match", (r"[a-z]+\[[0-9]+\]", r"foo\[1\]"), True),
        ("regex.globs_match", ("[^a-c]x", "bx"), False),
    ],
)
def test_regex_table(name: str, args: tuple[object, ...], want: object) -> None:
    assert call(name, *args) == want


@pytest.mark.parametrize(
    ("pattern", "delims", "value", "want"),
    [
        ("*.github.com", ["."], "api.github.com", True),
        ("*.github.com", ["."], "api.cdn.github.com", False),
        ("api.**.com", ["."], "api.cdn.github.com", True),
        ("*:github:com", [":"], "api:github:com", True),
        ("*", [], "foo.bar", False),  # [] means the default delimiter "."
        ("*", None, "foo.bar", True),  # null means no delimiters
        ("?at", ["f"], "fat", False),
        ("[!a-c]at", [], "fat", True),
        ("[abc]at", [], "fat", False),
        ("{cat,bat,[fr]at}", [], "rat", True),
        ("{cat,bat,[fr]at}", [], "at", False),
        (r"\*x", None, "*x", True),
        ("a{b,{c,d}}e", None, "ade", True),
    ],
)
def test_glob_match(pattern: str, delims: object, value: str, want: bool) -> None:
    assert call("glob.match", pattern, delims, value) is want


def test_glob_errors_and_quote_meta() -> None:
    fails("glob.match", "[abc", None, "a", match="glob.match")
    fails("glob.match", "{a,b", None, "a", match="glob.match")
    assert call("glob.quote_meta", "*.github.com") == r"\*.github.com"
    assert call("glob.quote_meta", "[a]{b}?\\") == r"\[a\]\{b\}\?\\"
