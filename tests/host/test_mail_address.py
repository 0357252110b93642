"""Go's net/mail.ParseAddress as the e-mail formats of json.match_schema read it (the cases
in tests/compliance/cases/email_format.json run it through Rego; these check the parser's
pieces and that it never raises)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.host.builtins._mail_address import is_address


@pytest.mark.parametrize(("text", "ok"), [
    ("a@b.c(c)(d)", True), ("a@b.c (c (nested)) ", True), ("a@b.c (c \\) d)", True),
    ('"a\\"b"@c', True), ('"a\\\u0001"@c', False), ("J. R. <a@b.c>", True), ("<a@b.c> (x)", True),
    ("Team: a@b.c (x) ;", True), ("Team: <a@b.c>;", True), ("Team: x: a@b.c;;", False),
    ("=?iso-8859-1?q?J=F6rg?= <a@b.c>", True), ("=?x-foo?b?!!!?= <a@b.c>", True),
    ("a@b.c (=?x-foo?q?J?=)", False), ("a@[1.2.3.4%eth0]", False), ("a@[1.2.3.4", False),
])
def test_parser_corners(text: str, ok: bool) -> None:
    assert is_address(text) is ok


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='ab@.<>()"\\[]:;, \t=?1', max_size=24))
def test_never_raises(text: str) -> None:
    assert is_address(text) in (True, False)
