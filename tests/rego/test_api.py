"""Public API: parse_files, find_rego_files, read_source; lexer details (tokens, templates)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cupcake_py.rego import ast as A
from cupcake_py.rego import find_rego_files, parse_files, parse_module
from cupcake_py.rego.errors import RegoErrors
from cupcake_py.rego.lexer import EOF, IDENT, NUM, TMPL, decode_string, tokenize


def test_find_and_parse_files(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.rego").write_text("package z\n\nz := 1\n")
    (tmp_path / "a.rego").write_text("package a\n\na := 1\n")
    (tmp_path / "readme.md").write_text("# no")
    files = find_rego_files([tmp_path, tmp_path / "a.rego"])
    assert files == [tmp_path / "a.rego", tmp_path / "b" / "z.rego"]
    assert [m.package.dotted() for m in parse_files(files)] == ["a", "z"]
    with pytest.raises(RegoErrors, match="no such file"):
        find_rego_files([tmp_path / "missing"])


def test_parse_files_collects_errors_of_all_files(tmp_path: Path) -> None:
    (tmp_path / "x.rego").write_text("package x\np { true }\n")
    (tmp_path / "y.rego").write_text("package y\nq[x] { true }\n")
    with pytest.raises(RegoErrors) as info:
        parse_files(sorted(tmp_path.glob("*.rego")))
    assert [Path(e.location.file).name for e in info.value.errors if e.location] == ["x.rego", "y.rego", "y.rego"]  # (y: `if` and `contains` required, as OPA)


def test_tokens_flags_and_comments() -> None:
    t = tokenize("a.b # c\n  x[1] := 2.5e1", "f")
    assert t.kinds == [IDENT, ".", IDENT, IDENT, "[", NUM, "]", ":=", NUM, EOF]
    assert t.nl[:4] == [False, False, False, True]
    assert t.ws[:4] == [False, False, False, True] and t.ws[4] is False
    assert t.comments == [(4, " c")]
    assert str(t.location(t.pos[3])) == "f:2:3"


def test_template_scanning_nests() -> None:
    t = tokenize('$"a {$"{b}"} {"}"} c" x', "f")
    assert t.kinds == [TMPL, IDENT, EOF]
    raw, parts = t.templates[0]
    assert not raw and [p.hole for p in parts] == [False, True, False, True, False]


def test_illegal_character_reported_and_skipped() -> None:
    t = tokenize("a ~ b", "f")
    assert t.kinds == [IDENT, IDENT, EOF]
    assert [e.message for e in t.errors] == ["illegal character '~'"]


@pytest.mark.parametrize(("body", "want"), [
    ("plain", "plain"), (r"\n\t\"\\\/", "\n\t\"\\/"), (r"\u00e9", "é"), (r"\ud83d\ude00", "😀"),
    (r"\x41", None), (r"\u12", None), ("a\\", None),
])
def test_decode_string(body: str, want: str | None) -> None:
    assert decode_string(body) == want


def test_string_and_raw_string_values() -> None:
    m = parse_module('package p\nx := "\\u0041\\n"\ny := `a\\nb`\n', "s")
    assert [r.head.value for r in m.rules] == [A.Term(A.String("A\n")), A.Term(A.String("a\\nb"))]
