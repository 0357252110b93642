"""Golden parse errors: exact messages and positions for broken or Rego v0 input."""

from __future__ import annotations

import orjson
import pytest

from cupcake_py.core.errors import Location
from cupcake_py.rego import parse_module, parse_query, parse_term
from cupcake_py.rego.errors import PARSE, RegoError, RegoErrors, format_json, format_text

GOLDEN = [
    ('package p\np := 1 if { a } else { b }\n',
     ['2:22: `if` keyword is required before an else body (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write `else := <value> if { ... }`']),
    ('p := 1\n',
     ['1:1: unexpected identifier `p`: expected `package` (a module starts with `package <path>`)']),
    ('package\n',
     ['2:1: unexpected end of input: expected a package path (e.g. `package authz`)']),
    ('package p\np { true }\n',
     ['2:3: `if` keyword is required before rule body (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write `p if { ... }`']),
    ('package p\np[x] { x := 1 }\n',
     ['2:6: `if` keyword is required before rule body (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write `p contains x if { ... }`',
      '2:1: `contains` keyword is required for partial set rules (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write `p contains <element> if { ... }`']),
    ('package p\np[x]\n',
     ['2:1: `contains` keyword is required for partial set rules (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write `p contains <element> if { ... }`']),
    ('package p\np = 1 { true }\n',
     ['2:7: `if` keyword is required before rule body (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write `p = 1 if { ... }`']),
    ('package p\nf(x) = y { y := x }\n',
     ['2:10: `if` keyword is required before rule body (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write `f(x) = y if { ... }`']),
    ('package p\np\n',
     ['2:1: rule `p` needs a value or a body: write `p := <value>` or `p if { ... }`']),
    ('package p\np := \n',
     ['3:1: unexpected end of input: expected a term']),
    ('package p\np := 1 if { false } else := 2 if {}\n',  # `p if {}`: body `{}` (an empty object), as OPA
     ['2:35: found empty body']),
    ('package p\np if { x := }\n',
     ['2:13: unexpected `}`: expected a term']),
    ('package p\np if { a b }\n',
     ['2:10: unexpected identifier `b`: expected `;`, a newline or `}`']),
    ('package p\np := "abc\n',
     ['2:6: non-terminated string']),
    ('package p\np := "a\\qb"\n',
     ['2:6: invalid escape sequence in string (allowed: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)']),
    ('package p\np := `abc\n',
     ['2:6: non-terminated raw string']),
    ('package p\np := $"abc\n',
     ['2:6: non-terminated template string']),
    ('package p\np := $"a {} b"\n',
     ['2:11: empty template expression `{}`: write an expression inside the braces']),
    ('package p\np := $"a {1 +} b"\n',
     ['2:14: unexpected end of input: expected a term']),
    ('package p\np := 1 ~ 2\n',
     ["2:8: illegal character '~'", '2:10: unexpected number: expected a newline before the next statement']),
    ('package p\nimport foo.bar\n',
     ['2:8: unexpected import path, must begin with one of: {data, future, input, rego}, got: foo']),
    ('package p\nimport rego.v2\n',
     ['2:8: invalid import `rego.v2`: the only `rego` import is `rego.v1`']),
    ('package p\nimport future.keywords.foo\n',
     ['2:8: invalid import `future.keywords.foo`: use `future.keywords` or future.keywords.<in|every|if|contains>']),
    ('package p\np := 1\nimport data.x.if\n',  # imports may follow rules (OPA), but not end in a keyword
     ['3:15: unexpected import path, must not end with a keyword, got: if']),
    ('package p\npackage q\n',
     ['2:1: a module has exactly one `package` declaration']),
    ('package p\ndefault p if { true }\n',
     ['2:11: default rules cannot have a body']),
    ('package p\ndefault p\n',
     ['2:1: illegal default rule (must have a value)']),
    ('package p\nq if { some 1 }\n',
     ['2:13: expected variables after `some` (e.g. `some x, y` or `some x in xs`)']),
    ('package p\nq if { every 1 in x { true } }\n',
     ['2:14: expected variables after `every` (e.g. `every k, v in xs { ... }`)']),
    ('package p\nq if { every x in y }\n',
     ['2:21: unexpected `}`: expected `{` to start the body of `every`']),
    ('package p\np if x; y\n',
     ['2:7: a rule body without braces holds one expression: write `if { a; b }` for more']),
    ('package p\np contains x if { x := 1 } else := 2\n',
     ['2:28: else keyword cannot be used on multi-value rules']),
    ('package p\nif := 1\n',
     ['2:1: unexpected keyword `if`: expected a rule (e.g. `allow if { ... }`, `x := 1`, `deny contains msg if { ... }`)']),
    ('package p\np := [1, 2\nq := 1\n',
     ['3:1: unexpected identifier `q`: expected `,` or `]`']),
    ('package p\np if {\n  x := 1\n  y := [1,\n}\nq := 2 2\nr if { not }\n',
     ['5:1: unexpected `}`: expected a term', '6:8: unexpected number: expected a newline before the next statement', '7:12: unexpected `}`: expected a term']),
    ('package p\np := (1 + 2\n',
     ['3:1: unexpected end of input: expected `)`']),
    ('package p\np := {1: 2, 3}\n',
     ['2:14: unexpected `}`: expected `:` between object key and value']),
    ('package p\np := x with\n',
     ['2:8: unexpected keyword `with`: expected a newline before the next statement']),
    ('package p\np if { x with input 1 }\n',
     ['2:21: unexpected number: expected `as` in `with <target> as <value>`']),
]


@pytest.mark.parametrize(("src", "want"), GOLDEN, ids=[s for s, _ in GOLDEN])
def test_golden_parse_errors(src: str, want: list[str]) -> None:
    with pytest.raises(RegoErrors) as info:
        parse_module(src, "t.rego")
    errs = info.value.errors
    assert all(e.code == PARSE and e.location is not None and e.location.file == "t.rego" for e in errs)
    assert [f"{e.location.row}:{e.location.col}: {e.message}" for e in errs if e.location] == want


def test_errors_are_capped_at_ten() -> None:
    src = "package p\n" + "".join(f"r{i} if {{ x := }}\n" for i in range(25))
    with pytest.raises(RegoErrors) as info:
        parse_module(src, "t.rego")
    assert len(info.value.errors) == 10
    assert info.value.truncated
    assert [e.location.row for e in info.value.errors if e.location] == list(range(2, 12))


@pytest.mark.parametrize(("text", "want"), [
    ("", "1:1: empty query"),
    ("x := ", "1:6: unexpected end of input: expected a term"),
    ("x = 1 y = 2", "1:7: unexpected identifier `y`: expected `;`, a newline or end of input"),
])
def test_query_errors(text: str, want: str) -> None:
    with pytest.raises(RegoErrors) as info:
        parse_query(text)
    e = info.value.errors[0]
    assert e.location is not None and e.location.file == "<query>"
    assert f"{e.location.row}:{e.location.col}: {e.message}" == want


@pytest.mark.parametrize("text", ["{1:", "[1, 2", "1 2", "{\"a\" 1}", "x :="])
def test_term_errors(text: str) -> None:
    with pytest.raises(RegoErrors):
        parse_term(text)


def test_format_text_with_caret() -> None:
    src = "package p\n\tp { true }\n"
    with pytest.raises(RegoErrors) as info:
        parse_module(src, "x.rego")
    text = format_text(info.value.errors, {"x.rego": src})
    assert text.splitlines() == [
        "x.rego:2:4: rego_parse_error: `if` keyword is required before rule body (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest): write "
        "`p if { ... }`",
        "\t p { true }",
        "\t   ^",
    ]


def test_format_text_without_source_and_json() -> None:
    errs = [RegoError(PARSE, "bad", Location("a.rego", 3, 5)), RegoError("rego_type_error", "no loc", None)]
    assert format_text(errs) == "a.rego:3:5: rego_parse_error: bad\nrego_type_error: no loc"
    assert orjson.loads(format_json(errs)) == {"errors": [
        {"code": "rego_parse_error", "message": "bad", "location": {"file": "a.rego", "row": 3, "col": 5}},
        {"code": "rego_type_error", "message": "no loc"},
    ]}


def test_rego_errors_summary_and_equality() -> None:
    e = RegoError(PARSE, "m", Location("f", 1, 2))
    assert e == RegoError(PARSE, "m", Location("f", 1, 2)) and str(e) == "f:1:2: rego_parse_error: m"
    assert str(RegoErrors([e])).startswith("1 error occurred:")
