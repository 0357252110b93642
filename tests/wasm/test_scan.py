"""ScanStmt walks by position (opa_value_key_at / opa_value_value_at): keys and values in the
order `some k, v in x` has always had (arrays by index, objects by sorted key, sets sorted),
for collections from the input and built during the evaluation, nested, empty, and with
more elements than the runtime's table of small indexes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.plan import compile_query
from cupcake_py.wasm import compile_policy

POLICY = """package t
import rego.v1
pairs := [[k, v] | some k, v in input.x]
set_elems := [e | some e in {y | some y in input.ys}]
nested := [[i, j] | some i, row in input.rows; some j, cell in row; cell]
obj_keys := [k | some k, _ in {k: v | some k, v in input.x; is_string(k)}]
"""
_INST: list[Any] = []
SCALARS = st.one_of(st.integers(-3, 3), st.text("ab", max_size=2), st.booleans(), st.none())


def _instance() -> Any:
    if not _INST:
        plan = compile_query([POLICY], "r = [data.t.pairs, data.t.set_elems, data.t.nested, data.t.obj_keys]",
                             entrypoint="q")
        _INST.append(PolicyModule(compile_policy(plan), HostOptions(cache_dir=None)).instantiate())
    return _INST[0]


def _order(v: Any) -> tuple[int, Any]:  # Rego's order within one JSON type: null < bool < number < string
    return ({type(None): 0, bool: 1, int: 2, str: 3}[type(v)], v)


@settings(max_examples=60, deadline=None)
@given(x=st.one_of(st.lists(SCALARS, max_size=6), st.dictionaries(st.text("abc", max_size=3), SCALARS, max_size=6)),
       ys=st.lists(SCALARS, max_size=8), rows=st.lists(st.lists(st.booleans(), max_size=4), max_size=4))
def test_scans_follow_the_order_of_iteration(x: Any, ys: list[Any], rows: list[list[bool]]) -> None:
    got = _instance().eval("q", {"x": x, "ys": ys, "rows": rows})[0]["r"]
    pairs = [[i, v] for i, v in enumerate(x)] if isinstance(x, list) else [[k, x[k]] for k in sorted(x)]
    elems = sorted({(type(y).__name__, y): y for y in ys}.values(), key=_order)
    nested = [[i, j] for i, row in enumerate(rows) for j, cell in enumerate(row) if cell]
    keys = sorted(x) if isinstance(x, dict) else []
    assert got == [pairs, elems, nested, keys]


def test_long_arrays_and_empty_collections() -> None:
    n = 3000  # past the runtime's 1024 preallocated indexes
    got = _instance().eval("q", {"x": list(range(n)), "ys": [], "rows": [[], []]})[0]["r"]
    assert got[0] == [[i, i] for i in range(n)] and got[1:] == [[], [], []]
