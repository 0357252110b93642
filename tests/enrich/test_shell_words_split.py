"""enrich/shell_words.words splits as Python's shlex does in the mode the analysis uses (posix,
whitespace_split, no comments, punctuation `;&|()<>!{}`): the same words for any text, ValueError
exactly where shlex raises one (an unclosed quote, a backslash at the end), so `segments` answers as
it did with shlex (a whitespace split after an error). shlex is the reference here only; the module
never calls it, and its Python-level work grows linearly with the command (counted, not timed:
benches/shell_words_growth.py has the times)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cupcake_py.enrich import shell_words
from tests.call_count import calls

PUNCTUATION = ";&|()<>!{}"


def reference(text: str) -> list[str] | type[Exception]:
    lex = shlex.shlex(text, posix=True, punctuation_chars=PUNCTUATION)
    lex.whitespace_split = True
    lex.commenters = ""
    try:
        return list(lex)
    except ValueError:
        return ValueError


def ours(text: str) -> list[str] | type[Exception]:
    try:
        return shell_words.words(text)
    except ValueError:
        return ValueError


# Shell-like pieces (quotes, escapes, operators, shlex's and other whitespace, non-ASCII) and any text.
PIECES = st.sampled_from(["'", '"', "\\", "\\\\", '\\"', "\\'", "\\\n", " ", "\t", "\r", "\n", "\r\n", "\x0b",
                          "\x0c", "\xa0", "\u2028", "\u3000", "\x00", "#", "$", "`", "~", "=", "*", "a", "b", "-",
                          "./x", "ß", "é", "日本", "\U0001f600", "&&", "||", ">>", "2>&1", "<<", "$(", "${x}", "'a b'",
                          '"a b"', '"a \\" b"', "'it''s'", "echo"] + list(PUNCTUATION))
SHELLISH = st.lists(PIECES, max_size=30).map("".join)
ANY_TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60)


@given(st.one_of(SHELLISH, ANY_TEXT, st.text(alphabet="'\"\\ ;&a\n", max_size=40)))
@settings(max_examples=3000, deadline=None)
@example("echo 'abc")
@example('echo "abc\\')
@example("echo abc\\")
@example('a"b\\"c"d')
@example("''")
@example("x '' \"\" y")
@example("a\\\nb")
def test_the_same_words_as_shlex(text: str) -> None:
    assert ours(text) == reference(text)


@given(st.one_of(SHELLISH, ANY_TEXT))
@settings(max_examples=1000, deadline=None)
def test_segments_answer_as_with_shlex(text: str) -> None:
    """The caller's behaviour: shlex's words grouped at operators, or after an error the text's
    whitespace split (fail-closed: the unquoted words are still looked at)."""
    want = reference(text)
    assert shell_words._split_segments(text) == shell_words._group(text.split() if want is ValueError else want)


def test_an_unclosed_quote_falls_back_to_the_whitespace_split() -> None:
    assert shell_words.segments("rm -rf 'build && echo x") == [["rm", "-rf", "'build"], ["echo", "x"]]
    assert shell_words.segments('cat "a b\\') == [["cat", '"a', "b\\"]]


def test_shlex_is_never_called(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("shlex called")

    monkeypatch.setattr(shlex, "shlex", refuse)
    monkeypatch.setattr(shlex, "split", refuse)
    command = "bash -c \"echo 'x' \\\"y\\\"\" && printf '%s\\n' \"$(cat a\\ b)\" | tee out"
    assert shell_words._split_segments(command) == [["bash", "-c", "echo 'x' \"y\""],
                                                    ["printf", "%s\\n", "$(cat a\\ b)"], ["tee", "out"]]


SHAPES = {  # a piece repeated to the size: one huge quoted argument, many quoted words, escapes, nesting
    "one quoted argument": ("echo '", "print(x)  # \"q\" \\ z\n", "'"),
    "quoted arguments": ("printf '%s\\n'", ' "word {i}"', ""),
    "backslashes": ("echo ", "a\\ b\\\\c\\'{i}", ""),
    "nested quotes": ('bash -c "', "echo 'x{i}' \\\"y\\\" \\$HOME; ", '"'),
}


def _command(shape: str, size: int) -> str:
    head, piece, tail = SHAPES[shape]
    parts, n, i = [head], len(head), 0
    while n < size:
        parts.append(piece.format(i=i) if "{i}" in piece else piece)
        n += len(parts[-1])
        i += 1
    return "".join(parts) + tail


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_work_grows_linearly_with_a_2_mb_command(shape: str) -> None:
    small, big = _command(shape, 500_000), _command(shape, 2_000_000)
    assert shell_words.words(big)  # split, not refused
    work_small, work_big = calls(lambda: shell_words.words(small)), calls(lambda: shell_words.words(big))
    assert work_big <= 4 * 1.5 * work_small + 100, (work_small, work_big)  # 4x the size; quadratic would be 16x


def test_a_huge_quoted_argument_costs_no_step_per_character() -> None:
    """shlex reads one character per call and copies the word so far at each (quadratic); here
    a 2 MB single-quoted argument takes as many Python-level steps as a 500 KB one."""
    small, big = _command("one quoted argument", 500_000), _command("one quoted argument", 2_000_000)
    assert calls(lambda: shell_words.words(small)) == calls(lambda: shell_words.words(big))
    assert shell_words.words(big) == ["echo", big[len("echo '"):-1]]


def test_scripts_and_directories_keep_their_first_order_without_repeats(tmp_path: Any) -> None:
    base = str(tmp_path)
    command = "./b.sh; bash a.sh && ./b.sh | sh a.sh; cd sub && ./b.sh; cat x/1 ./y x/1 ./y /etc/z"
    runs = [(r.word, r.path) for r in shell_words.executed_scripts(command, base)]
    assert runs == [("./b.sh", f"{base}/b.sh"), ("a.sh", f"{base}/a.sh"), ("./b.sh", f"{base}/sub/b.sh")]
    assert shell_words.affected_directories(command, base) == [f"{base}/sub/x/1", f"{base}/sub/y", "/etc/z"]


def test_many_scripts_cost_no_comparison_per_pair() -> None:
    """Each script is remembered once in an ordered set: 4x the scripts, about 4x the work (a list's
    `in` compared each new script with all before it: 10,000 scripts took 90 s)."""
    def run(n: int) -> Callable[[], Any]:
        return lambda: shell_words.executed_scripts("; ".join(f"./s{i}" for i in range(n)), "/nonexistent")

    assert len(run(2000)()) == 2000
    work_small, work_big = calls(run(500)), calls(run(2000))
    assert work_big <= 4 * 1.5 * work_small, (work_small, work_big)


@given(st.lists(st.sampled_from(["x", "x[1]", "x*", "./x", "y", "cd sub", "cd ..", "cat", "&&", ";", "/etc/h*",
                                 "'a b'", "sub/x"]), max_size=14).map(" ".join))
@settings(max_examples=300, deadline=None)
def test_directories_are_those_of_each_word_looked_at_alone(command: str) -> None:
    """Remembering what was looked at changes no answer: the paths equal the union, in order, of
    each simple command's words looked at one by one (no memo)."""
    import os
    base = os.path.dirname(os.path.abspath(__file__))
    want: dict[str, None] = {}
    for words, here in shell_words.simple_commands(command, base):
        for w in words[1:]:
            if w in shell_words.REDIRECTS or w == "--" or w.isdigit() or (w.startswith("-") and "/" not in w):
                continue
            if not (shell_words.PATH_CHARS.search(w) or w[:1] in ".$~" or os.path.lexists(os.path.join(here, w))):
                continue
            if "://" in w or w in shell_words.QUIET_DEVICES:
                continue
            m = shell_words.GLOB_CHARS.search(w)
            want[shell_words.resolve_path((w[: m.start()] if m else w) or ".", here)] = None
    assert shell_words.affected_directories(command, base) == list(want)


@pytest.fixture(scope="module")
def link_tree(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Directories, a file, symlinks to each, a dangling one, a loop and a self loop."""
    import os
    root = tmp_path_factory.mktemp("links")
    (root / "d" / "e").mkdir(parents=True)
    (root / "d" / "f").write_text("x")
    for name, target in (("ld", "d"), ("lf", "d/f"), ("dangling", "nowhere"), ("loop1", "loop2"),
                         ("loop2", "loop1"), ("self", "self"), ("up", ".."), ("d/e/back", "../..")):
        os.symlink(target, root / name)
    return str(root)


@given(st.lists(st.sampled_from(["d", "e", "f", "ld", "lf", "dangling", "loop1", "self", "up", "back", "..", ".",
                                 "", "nope", "d/e"]), min_size=1, max_size=6).map("/".join),
       st.sampled_from(["", "d", "d/e", "ld", "nope"]), st.booleans())
@settings(max_examples=1200, deadline=None)
@example("loop1/../ld", "", False)  # realpath stops resolving at a loop
@example("loop1//d", "", False)
@example("nope/../loop1/d", "", False)
def test_the_resolver_gives_realpaths_answers(link_tree: str, word: str, sub: str, absolute: bool) -> None:
    import os
    base = os.path.join(link_tree, sub)
    raw = os.path.join(link_tree, word) if absolute else word
    resolve = shell_words._Resolver()
    for _ in range(2):  # fresh, then with the parent remembered
        assert resolve(raw, base) == shell_words.resolve_path(raw, base)
