"""Hypothesis properties: the parser never raises anything but RegoErrors (random text, random
bytes, mutated real policies), and generated ASTs survive print -> parse unchanged."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.rego import ast as A
from cupcake_py.rego import parse_module, parse_query, parse_term
from cupcake_py.rego.errors import RegoErrors
from cupcake_py.rego.parser import KEYWORDS
from cupcake_py.rego.printer import print_module

from .conftest import compliance_cases

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CORPUS = [m for c in compliance_cases() for m in c.get("modules") or []]
REGO_ALPHABET = "abxyz_019 .,;:=!<>+-*/%&|()[]{}\"`$\\#\n\tifnotsomeeverywithascontainselsedefault"


def _parses_or_rego_errors(text: str) -> A.Module | None:
    try:
        return parse_module(text, "fuzz.rego")
    except RegoErrors as exc:
        assert 1 <= len(exc.errors) <= 10
        assert all(e.code == "rego_parse_error" for e in exc.errors)
        return None


@SETTINGS
@given(st.text())
def test_random_text_only_rego_errors(text: str) -> None:
    _parses_or_rego_errors(text)
    for fn in (parse_query, parse_term):
        try:
            fn(text)
        except RegoErrors:
            pass


@SETTINGS
@given(st.binary())
def test_random_bytes_only_rego_errors(data: bytes) -> None:
    _parses_or_rego_errors("package p\n" + data.decode("utf-8", "replace"))


@SETTINGS
@given(st.text(alphabet=REGO_ALPHABET, max_size=200))
def test_rego_like_noise_only_rego_errors(text: str) -> None:
    _parses_or_rego_errors("package p\n" + text)


@SETTINGS
@given(st.lists(st.text(alphabet="abcdefgijklmnoprstuyz :-[]{}'\"!&*?|>#0123456789\t", max_size=30), max_size=6))
def test_random_metadata_only_rego_errors(lines: list[str]) -> None:
    block = "".join(f"# {line}\n" for line in ["title: t", "custom:", *("  " + x for x in lines)])
    module = _parses_or_rego_errors(f"package p\n\n# METADATA\n{block}p := 1\n")
    if module is not None:
        assert parse_module(print_module(module), "again.rego") == module


def test_impossible_date_in_metadata_stays_a_string() -> None:
    # OPA's YAML -> JSON keeps an unquoted timestamp as the text written, valid date or not
    m = _parses_or_rego_errors("package p\n# METADATA\n# custom:\n#   d: 2001-13-45\np := 1\n")
    assert m is not None and m.rules[0].annotations[0].custom == {"d": "2001-13-45"}


@st.composite
def mutated_policy(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 12)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "replace"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.text(alphabet=REGO_ALPHABET, min_size=1, max_size=6)) + text[i:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + draw(st.text(alphabet=REGO_ALPHABET, max_size=4)) + text[j:]
    return text


@SETTINGS
@given(mutated_policy())
def test_mutated_policies_only_rego_errors_and_round_trip(text: str) -> None:
    module = _parses_or_rego_errors(text)
    if module is not None:
        assert parse_module(print_module(module), "again.rego") == module


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    for text in ("package p\nx := " + "[" * 5000, "package p\nx := " + "[" * 3000 + "]" * 3000,
                 "package p\nx := " + "-" * 5000 + "1"):
        _parses_or_rego_errors(text)


# ----------------------------------------------------------------------------- generated ASTs

NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,4}", fullmatch=True).filter(lambda s: s not in KEYWORDS and s != "set")
INFIX = ["equal", "neq", "lt", "lte", "gt", "gte", "plus", "minus", "mul", "div", "rem", "and", "or",
         "internal.member_2"]


def T(v: Any) -> A.Term:
    return A.Term(v)


def expr_of(t: A.Term) -> A.Expr:
    """The expression the parser builds for a term: a call term becomes the call form."""
    if isinstance(t.value, A.Call):
        return A.Expr([T(t.value.operator), *t.value.args])
    return A.Expr(t)


numbers = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.tuples(st.integers(0, 999), st.integers(0, 999)).map(lambda t: f"{t[0]}.{t[1]}"),
    st.tuples(st.integers(1, 9), st.integers(-40, 40)).map(lambda t: f"{t[0]}e{t[1]}"),
)
constants = st.one_of(
    st.just(A.Null()), st.booleans().map(A.Boolean), numbers.map(A.Number), st.text(max_size=8).map(A.String),
).map(T)
scalars = st.one_of(constants, NAMES.map(A.Var).map(T))


def refs(inner: st.SearchStrategy[A.Term]) -> st.SearchStrategy[A.Term]:
    tail = st.one_of(st.text(max_size=5).map(A.String).map(T), NAMES.map(A.Var).map(T), inner)
    head = st.one_of(NAMES.map(A.Var).map(T), inner.filter(lambda t: isinstance(
        t.value, A.Array | A.Object | A.Set | A.Call | A.ArrayComprehension) and not (
        isinstance(t.value, A.Set) and not t.value.items)))
    return st.builds(lambda h, ts: T(A.Ref([h, *ts])), head, st.lists(tail, min_size=1, max_size=3))


def dotted(names: list[str]) -> A.Ref:
    return A.ref_of(".".join(names))


def calls(inner: st.SearchStrategy[A.Term]) -> st.SearchStrategy[A.Term]:
    infix = st.builds(lambda op, a, b: T(A.Call(A.ref_of(op), [a, b])), st.sampled_from(INFIX), inner, inner)
    named = st.builds(lambda ns, args: T(A.Call(dotted(ns), args)), st.lists(NAMES, min_size=1, max_size=2),
                      st.lists(inner, max_size=3))
    return st.one_of(infix, named)


def templates(inner: st.SearchStrategy[A.Term]) -> st.SearchStrategy[A.Term]:
    @st.composite
    def build(draw: st.DrawFn) -> A.Term:
        raw = draw(st.booleans())
        text = st.text(alphabet="ab {}\n\"'" if raw else st.characters(), min_size=1, max_size=5)
        parts: list[A.Term | A.Expr] = []
        last_str = False
        for _ in range(draw(st.integers(0, 4))):
            if not last_str and draw(st.booleans()):
                parts.append(T(A.String(draw(text))))
                last_str = True
            else:
                parts.append(expr_of(draw(inner)))
                last_str = False
        return T(A.TemplateString(parts, raw))
    return build()


def terms() -> st.SearchStrategy[A.Term]:
    def extend(inner: st.SearchStrategy[A.Term]) -> st.SearchStrategy[A.Term]:
        items = st.lists(inner, max_size=3)
        return st.one_of(
            items.map(A.Array).map(T), items.map(A.Set).map(T),
            st.lists(st.tuples(inner, inner), max_size=3).map(A.Object).map(T),
            st.builds(lambda t, b: T(A.ArrayComprehension(t, b)), inner, SMALL_BODIES),
            st.builds(lambda t, b: T(A.SetComprehension(t, b)), inner, SMALL_BODIES),
            st.builds(lambda k, v, b: T(A.ObjectComprehension(k, v, b)), inner, inner, SMALL_BODIES),
            refs(inner), calls(inner), templates(inner),
        )
    return st.recursive(scalars, extend, max_leaves=4)


def exprs(inner: st.SearchStrategy[A.Term]) -> st.SearchStrategy[A.Expr]:
    var = NAMES.map(A.Var).map(T)
    plain = inner.filter(lambda t: not isinstance(t.value, A.Call)).map(A.Expr)
    call = st.builds(lambda op, a, b: A.Expr([T(A.ref_of(op)), a, b]),
                     st.sampled_from(["assign", "eq", *INFIX]), inner, inner)
    member3 = st.builds(lambda a, b, c: A.Expr([T(A.ref_of("internal.member_3")), a, b, c]), var, var, inner)
    some = st.one_of(
        st.lists(var, min_size=1, max_size=3).map(lambda vs: A.Expr(A.SomeDecl(vs))),
        st.builds(lambda x, xs: A.Expr(A.SomeDecl([T(A.Call(A.ref_of("internal.member_2"), [x, xs]))])),
                  var, inner),
        st.builds(lambda k, v, xs: A.Expr(A.SomeDecl([T(A.Call(A.ref_of("internal.member_3"), [k, v, xs]))])),
                  var, var, inner),
    )
    every = st.builds(lambda k, v, d, b: A.Expr(A.Every(k, v, d, b)), st.none() | var, var, inner,
                      st.lists(plain, min_size=1, max_size=2).map(_index))
    base = st.one_of(plain, call, member3, some, every)

    def decorate(e: A.Expr, neg: bool, withs: list[tuple[A.Term, A.Term]]) -> A.Expr:
        if not isinstance(e.terms, A.SomeDecl | A.Every):
            e.negated = neg
        e.with_ = [A.With(t, v) for t, v in withs]
        return e

    target = st.one_of(var, st.builds(lambda n, ks: T(A.ref_of(".".join([n, *ks]))), NAMES, st.lists(NAMES,
                                                                                              min_size=1, max_size=2)))
    return st.builds(decorate, base, st.booleans(), st.lists(st.tuples(target, inner), max_size=1))


def bodies(inner: st.SearchStrategy[A.Term]) -> st.SearchStrategy[A.Body]:
    return st.lists(exprs(inner), min_size=1, max_size=2).map(_index)


def _index(body: A.Body) -> A.Body:
    for i, e in enumerate(body):
        e.index = i
    return body


SMALL_BODIES = st.deferred(lambda: bodies(scalars))
TERMS = terms()


@st.composite
def modules(draw: st.DrawFn) -> A.Module:
    inner = TERMS
    rules: list[A.Rule] = []
    true_body = [A.Expr(T(A.Boolean(True)))]
    for _ in range(draw(st.integers(1, 3))):
        name = draw(NAMES)
        ref = A.Ref([T(A.Var(name)), *[T(A.String(s)) for s in draw(st.lists(NAMES, max_size=2))]])
        kind = draw(st.sampled_from(["complete", "if", "contains", "function", "default", "else"]))
        body = draw(bodies(inner))
        if kind == "complete":
            rules.append(A.Rule(A.Head(ref, value=draw(inner), assign=draw(st.booleans())), draw(st.sampled_from(
                [true_body, body]))))
        elif kind == "if":
            rules.append(A.Rule(A.Head(ref, value=T(A.Boolean(True))), body))
        elif kind == "contains":
            rules.append(A.Rule(A.Head(ref, key=draw(inner)), body))
        elif kind == "function":
            args = draw(st.lists(inner, min_size=1, max_size=3))
            rules.append(A.Rule(A.Head(ref, args=args, value=draw(inner), assign=True), body))
        elif kind == "default":  # a default value needs no evaluation (OPA rejects vars, refs, calls)
            rules.append(A.Rule(A.Head(ref, value=draw(constants), assign=True), true_body, default=True))
        else:
            head = A.Head(ref, value=draw(inner), assign=True)
            rule = A.Rule(head, body)
            rule.else_ = A.Rule(A.Head(ref, value=draw(inner), assign=True), draw(bodies(inner)))
            rules.append(rule)
    pkg = A.Package(A.Ref([T(A.Var("data")), *[T(A.String(s)) for s in draw(st.lists(NAMES, min_size=1,
                                                                                          max_size=3))]]))
    return A.Module(pkg, rules=rules)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_generated_modules_round_trip(module: A.Module) -> None:
    printed = print_module(module)
    assert parse_module(printed, "gen.rego") == module, printed
