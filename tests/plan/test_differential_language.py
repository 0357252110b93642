"""Differential test of the language corners of issue 16: hypothesis-generated programs that
exercise membership with tuples and parentheses, variables bound only by a ref index, brace
terms right after `if` / `contains` / `:=` / `else :=`, `with` mocks of builtins, and bodiless
function heads. Each program is evaluated by our pipeline (compile_entrypoints -> WASM ->
host) and compared with

* regorus (an independent Rust engine) for every rule regorus supports;
* a hand-written model (`Model` below, OPA's documented semantics) for the forms regorus
  rejects: bodiless function heads, a builtin replaced by another builtin, a
  `with ... as k, v in xs` value.

Bounded run time: EXAMPLES x BATCH programs (≈ 15 s on an idle core)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from cupcake_py.core import values

regorus = pytest.importorskip("regorus")
host = pytest.importorskip("cupcake_py.host")
host_errors = pytest.importorskip("cupcake_py.host.errors")

BATCH = 12
EXAMPLES = 15
SCALARS = st.one_of(st.integers(-1, 3), st.sampled_from(["a", "b", "c"]), st.sampled_from([True, None]))
REGORUS_RULES = ("m1", "m2", "m3", "m4", "m5", "s1", "s2", "s3", "s4", "c1", "c2", "c3", "c4", "w1", "w2", "w3",
                 "w4")
MODEL_RULES = ("b1", "b2", "wb", "wc", "mw", "ms")
Json = Any


def rego(v: Json) -> str:
    """A JSON value as Rego source (sets are written as `{...}` by `coll`)."""
    return values.dump_json(v)


class Model:
    """OPA's semantics for the forms regorus does not evaluate."""

    @staticmethod
    def member(k: Json, v: Json, coll: Json) -> bool:
        """`k, v in coll` (internal.member_3): arrays by index, objects by key, sets with
        key == value; anything else is false."""
        if isinstance(coll, list):
            return isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(coll) and _eq(coll[k], v)
        if isinstance(coll, dict):
            return any(_eq(key, k) and _eq(val, v) for key, val in coll.items())
        if isinstance(coll, tuple):  # a set literal (see Gen.coll)
            return _eq(k, v) and any(_eq(x, v) for x in coll)
        return False


def _eq(a: Json, b: Json) -> bool:
    return values.compare(values.parse_json(values.dump_json(a)), values.parse_json(values.dump_json(b))) == 0


class Gen:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def draw(self, s: st.SearchStrategy[Any]) -> Any:
        return self.data.draw(s)

    def coll(self, sets: bool = True) -> tuple[str, Json]:
        """A collection (or a non-collection) as (Rego text, model value); sets are tuples."""
        kinds = ["array", "object", "scalar", "input.xs", "input.o"] + (["set"] if sets else [])
        kind = self.draw(st.sampled_from(kinds))
        if kind == "array":
            xs = self.draw(st.lists(SCALARS, max_size=3))
            return rego(xs), xs
        if kind == "set":
            xs = self.draw(st.lists(SCALARS, min_size=1, max_size=3))
            return "{" + ", ".join(rego(x) for x in xs) + "}", tuple(xs)
        if kind == "object":
            o = self.draw(st.dictionaries(st.sampled_from(["a", "b"]), SCALARS, max_size=2))
            return rego(o), o
        if kind == "scalar":
            x = self.draw(SCALARS)
            return rego(x), x
        return kind, kind  # resolved against the input by the caller

    def program(self, pkg: str) -> tuple[str, dict[str, Callable[[dict[str, Any]], Json]]]:
        """Source text and, for MODEL_RULES, the expected value as a function of the input
        (None: undefined)."""
        d = self.draw
        k, v = rego(d(SCALARS)), rego(d(SCALARS))
        c1, _ = self.coll(sets=False)  # `k, v in set`: regorus is false, OPA 1.x (and we) k == v member
        c2, _ = self.coll(sets=False)
        c3, _ = self.coll()
        sk, sv, sset = d(SCALARS), d(SCALARS), d(st.lists(SCALARS, min_size=1, max_size=3))
        op = d(st.sampled_from(["==", "!=", "<", ">", ">="]))
        n = d(st.integers(-1, 3))
        mock = d(st.sampled_from(["7", "mf", "\"m\""]))
        nmock = d(st.sampled_from(["7", "mf"]))  # a number: `count(x) + 1` on a string is a type error
        lits = d(st.lists(st.integers(-1, 4), min_size=1, max_size=3, unique=True))
        repl = d(st.sampled_from(["sum", "max", "min", "product"]))
        wk, wv = d(SCALARS), d(SCALARS)
        wtext, wcoll = self.coll()
        lines = [f"package {pkg}", ""]
        lines += [
            f"m1 := ({k}, {v} in {c1})",
            f"m2 := [({k}, {v} in {c1}), {v} in {c3}]",
            f"m3 := ({k}, {v} in {c1}) in [true]",
            f"m4 := {k}, {v} in {c2}",
            f"m5 := x if {{ x := object.get({{\"r\": ({k}, {v} in {c1})}}, \"r\", 0) }}",
            f"s1 contains x if {{ x {op} input.xs[x] }}",
            f"s2 contains key if {{ input.o[key] {op} {n} }}",
            f"s3 := {{x | input.xs[x] {op} x}}",
            f"s4 contains y if {{ y := x + {n}; x {op} input.xs[x] }}",
            f"c1 if {{k: val | some k, val in input.o; val > {n}}}",
            f"c2 := {{k: val | some k, val in input.o; val {op} {n}}} if {{ true }}",
            f"c3 contains {{x | some x in input.xs; x {op} {n}}} if true",
            "c4 := 1 if { input.xs[0] == 99 } else := {x: 1 | some x in input.xs}",
            "mf(_) := 100",
            "uses(x) := count(x) + 1",
            f"w1 := x if {{ x := count(input.xs) with count as {mock} }}",
            f"w2 := x if {{ x := count(input.missing) with count as {mock} }}",
            f"w3 := x if {{ x := uses(input.xs) with count as {nmock} }}",
            f"w4 if {{ not s1 with input.xs as [{n}] }}",
        ]
        lines += [f"bf({x})" for x in lits]
        lines += [
            "b1 := [y | some y in input.xs; bf(y)]",
            f"b2 := count([1 | bf({n})])",
            f"wb := x if {{ x := count(input.xs) with count as {repl} }}",
            f"wc := x if {{ x := count(input.xs) with count as {repl} with {repl} as mf }}",
            "wq := input.v",
            f"mw := x if {{ x := wq with input.v as {rego(wk)}, {rego(wv)} in {wtext} }}",
            f"ms := ({rego(sk)}, {rego(sv)} in {{{', '.join(rego(x) for x in sset)}}})",
        ]
        agg: dict[str, Callable[[list[int]], Json]] = {
            "sum": sum, "max": max, "min": min, "product": _product}

        def coll_of(inp: dict[str, Any]) -> Json:
            return inp["xs"] if wcoll == "input.xs" else inp["o"] if wcoll == "input.o" else wcoll

        model: dict[str, Callable[[dict[str, Any]], Json]] = {
            "b1": lambda inp: [y for y in inp["xs"] if y in lits],
            "b2": lambda inp: 1 if n in lits else 0,
            "wb": lambda inp: agg[repl](inp["xs"]),
            "wc": lambda inp: agg[repl](inp["xs"]),
            "mw": lambda inp: Model.member(wk, wv, coll_of(inp)),
            "ms": lambda inp: Model.member(sk, sv, tuple(sset)),
        }
        return "\n".join(lines) + "\n", model


def _product(xs: list[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def norm(v: Json) -> Json:
    return values.parse_json(values.dump_json(v))


inputs = st.fixed_dictionaries({
    "xs": st.lists(st.integers(-1, 4), min_size=1, max_size=5),
    "o": st.dictionaries(st.sampled_from(["a", "b", "c"]), st.integers(-1, 4), max_size=3),
})


def _ours(inst: Any, ep: str, inp: dict[str, Any]) -> Json:
    try:
        got = inst.eval(ep, inp, keep_sets=True)
    except host_errors.EvalError as e:
        return ("error", str(e))
    return norm(got[0]["result"]) if got else None


def _regorus(engine: Any, query: str) -> Json:
    try:  # as JSON: regorus's Python values cannot hold a set of sets
        res = values.parse_json(engine.eval_query_as_json(query).encode()).get("result")
    except RuntimeError as e:
        return ("error", str(e).strip().splitlines()[0] if str(e).strip() else "")
    return norm(res[0]["expressions"][0]["value"]) if res else None


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # shrinking a batch is too slow
@given(st.data(), inputs)
def test_language_corners_agree(data: st.DataObject, inp: dict[str, Any]) -> None:
    from cupcake_py.plan import compile_entrypoints
    from cupcake_py.wasm import compile_policy

    gen = Gen(data)
    programs = [gen.program(f"p{i}") for i in range(BATCH)]
    sources = [src for src, _ in programs]
    entry = [f"p{i}/{r}" for i in range(BATCH) for r in REGORUS_RULES + MODEL_RULES]
    inst = host.load_policy(compile_policy(compile_entrypoints(sources, entry)), {})
    for i, (src, model) in enumerate(programs):
        engine = regorus.Engine()
        # regorus takes everything but the model-only rules (it rejects their syntax)
        engine.add_policy(f"p{i}.rego", "".join(ln + "\n" for ln in src.splitlines() if not _model_only(ln)))
        engine.set_input(inp)
        for rule in REGORUS_RULES:
            ours, theirs = _ours(inst, f"p{i}/{rule}", inp), _regorus(engine, f"data.p{i}.{rule}")
            assert _same(ours, theirs), f"p{i}.{rule}: ours={ours} regorus={theirs}\ninput={inp}\n{src}"
        for rule, want in model.items():
            ours, expected = _ours(inst, f"p{i}/{rule}", inp), norm(want(inp))
            assert _same(ours, expected), f"p{i}.{rule}: ours={ours} model={expected}\ninput={inp}\n{src}"


MODEL_ONLY_PREFIXES = ("bf(", "b1 ", "b2 ", "wb ", "wc ", "wq ", "mw ", "ms ")


def _model_only(line: str) -> bool:
    return line.startswith(MODEL_ONLY_PREFIXES)


def _same(a: Json, b: Json) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):  # errors: both must fail
        return isinstance(a, tuple) and isinstance(b, tuple)
    if a is None or b is None:
        return a is None and b is None
    return values.compare(a, b) == 0
