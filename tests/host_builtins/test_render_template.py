"""strings.render_template: Go text/template semantics (cases from Go's text/template docs)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.host.builtins import BuiltinContext, BuiltinError
from tests.host_builtins.calls import call, fails

DATA = {
    "name": "ann", "n": 3, "zero": 0, "f": Decimal("1.50"), "t": True, "no": False, "nil": None,
    "xs": ["a", "b", "c"], "empty": [], "m": {"b": 2, "a": 1}, "set": frozenset({2, 1}), "s": "<x&'y'>",
}  # fmt: skip


@pytest.mark.parametrize(
    ("template", "out"),
    [
        ("hi {{.name}}!", "hi ann!"),
        ("{{.n}} {{.f}} {{.t}} {{.nil}}", "3 1.50 true <no value>"),  # numbers print as written
        ("{{.xs}} {{.m}} {{.set}} {{.empty}}", "[a b c] map[a:1 b:2] [1 2] []"),
        ("{{.missing}}", "<undefined>"),
        ("a  {{- .name -}}  b", "aannb"),
        ("{{/* a comment */}}x{{- /* trimmed */ -}} y", "xy"),
        ("{{if .t}}yes{{end}}{{if .no}}no{{else}}else{{end}}", "yeselse"),
        ("{{if .no}}1{{else if .zero}}2{{else if .n}}3{{end}}", "2"),  # json.Number "0" is a non-empty string
        ("{{if .empty}}x{{else}}empty{{end}} {{if .nil}}x{{else}}nil{{end}}", "empty nil"),
        ("{{range .xs}}[{{.}}]{{end}}", "[a][b][c]"),
        ("{{range $i, $x := .xs}}{{if $i}},{{end}}{{$i}}={{$x}}{{end}}", "0=a,1=b,2=c"),
        ("{{range $k, $v := .m}}{{$k}}{{$v}}{{end}}", "a1b2"),  # maps in key order
        ("{{range .empty}}x{{else}}none{{end}}", "none"),
        ("{{range $x := .xs}}{{if eq $x \"b\"}}{{break}}{{end}}{{$x}}{{end}}", "a"),
        ("{{range .xs}}{{if eq . \"b\"}}{{continue}}{{end}}{{.}}{{end}}", "ac"),
        ("{{range 3}}{{.}}{{end}}", "012"),
        ("{{with .m}}{{.a}}{{end}}{{with .nil}}x{{else}}-{{end}}", "1-"),
        ("{{$x := .name}}{{$x}}{{$x = \"bob\"}} {{$x}} {{$.name}}", "ann bob ann"),
        ("{{len .xs}} {{len .name}} {{index .xs 1}} {{index .m \"b\"}} {{slice .xs 1 2}}", "3 3 b 2 [b]"),
        ("{{.name | printf \"%q\"}} {{printf \"%d-%s\" 7 .name}} {{print 1 2 \"x\" 3}}", '"ann" 7-ann 1 2x3'),
        ("{{and .t .name}} {{or .no .zero}} {{not .t}} {{and .no .missing.x}}", "ann 0 false false"),
        ("{{eq .name \"bob\" \"ann\"}} {{ne 1 2}} {{lt 1 2}} {{le 2 2}} {{gt \"b\" \"a\"}} {{ge 1.5 2}}",
         "true true true true true false"),
        ("{{html .s}} {{js .s}} {{urlquery \"a b&c\"}}", "&lt;x&amp;&#39;y&#39;&gt; \\u003Cx\\u0026\\'y\\'\\u003E a+b%26c"),
        ("{{(index .xs 0) | len}} {{\"raw\"}} {{`back`}} {{'a'}} {{0x10}} {{1e2}}", "1 raw back 97 16 100"),
        ("{{.m.a}}", "1"),
    ],
)  # fmt: skip
def test_text_template(template: str, out: str) -> None:
    assert call("strings.render_template", template, DATA) == out


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{{.name", "unclosed action"),
        ("{{nofunc 1}}", 'function "nofunc" not defined'),
        ("{{if .t}}x", "unexpected EOF"),
        ("{{end}}", "unexpected {{end}}"),
        ("{{.name.first}}", "can't evaluate field first in type string"),
        ("{{eq .n 3}}", "incompatible types for comparison"),  # json.Number vs int, as in Go
        ("{{index .xs 5}}", "index out of range"),
        ("{{$y}}", "undefined variable: $y"),
        ("{{range .name}}{{end}}", "range can't iterate over ann"),
        ("{{break}}", "outside {{range}}"),
        ("{{template \"x\"}}", "not supported"),
    ],
)  # fmt: skip
def test_template_errors(template: str, message: str) -> None:
    msg = fails("strings.render_template", template, DATA, match=message)
    assert msg.startswith("strings.render_template: template: ")


def test_missing_key_is_an_error_in_strict_mode() -> None:
    with pytest.raises(BuiltinError, match='map has no entry for key "x"'):
        call("strings.render_template", "{{.x}}", {}, ctx=BuiltinContext(strict=True))


def test_operand_types() -> None:
    fails("strings.render_template", 1, {}, match="operand 1 must be string but got number")
    fails("strings.render_template", "x", [], match="operand 2 must be object but got array")


@settings(max_examples=200, deadline=None)
@given(st.text("{}.$|()\"'`\\ -=:,abifendrangewith0x/*", max_size=30))
def test_arbitrary_actions_give_text_or_a_builtin_error(body: str) -> None:
    try:
        out = call("strings.render_template", "{{" + body + "}}", DATA)
    except BuiltinError:
        return
    assert isinstance(out, str)
