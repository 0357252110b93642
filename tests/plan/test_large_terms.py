"""Large terms plan without RecursionError (issue 32): a schema-sized constant literal (one
term of ~170 KB, 14 levels deep, thousands of keys) and wide collections of refs and calls,
whose planning depth used to grow with every element."""

from __future__ import annotations

import json
import sys
from typing import Any

from cupcake_py import ir
from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.plan import compile_entrypoints, compile_query
from cupcake_py.wasm import compile_policy


def _schema(depth: int, width: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string", "enum": [f"v{i}" for i in range(8)]}
    for d in range(depth):
        node = {"type": "object", "required": ["p"], "properties": {"p": node}, "title": f"level {d}"}
    node["properties"].update({f"k{i}": {"type": "string", "maxLength": i, "description": "x" * 40}
                               for i in range(width)})
    return node


SCHEMA = _schema(14, 1800)


def test_schema_sized_literal_plans_and_evaluates() -> None:
    text = json.dumps(SCHEMA, indent=1)
    assert len(text) > 166_000
    module = (f"package t\n\nschema := {text}\n\n"
              "errors := json.match_schema(input, schema)[1]\n")
    limit = sys.getrecursionlimit()
    policy = compile_entrypoints([module], ["t/errors"])
    assert sys.getrecursionlimit() == limit  # the planning thread's limit is put back
    instance = PolicyModule(compile_policy(policy), HostOptions(cache_dir=None)).instantiate()
    rows = instance.eval("t/errors", {"k3": "toolong", "p": {}})
    fields = {e["field"] for e in rows[0]["result"]}
    assert fields == {"k3", "p"}


def test_wide_collections_of_refs_and_calls_plan() -> None:
    refs = ", ".join(f"input.a{i}" for i in range(4000))
    calls = ", ".join(f'{{"k": [{i}, lower(input.b)]}}' for i in range(2000))
    policy = compile_query([f"package t\nxs := [{refs}]\nys := {{{calls}}}\n"], "x = [data.t.xs, data.t.ys]")
    assert isinstance(policy, ir.Policy)


def test_literal_plans_are_deterministic() -> None:
    module = f"package t\n\nschema := {json.dumps(SCHEMA)}\n"
    a = ir.dump(compile_query([module], "x = data.t.schema"))
    b = ir.dump(compile_query([module], "x = data.t.schema"))
    assert a == b


def test_nested_comprehensions_cost_grows_with_depth_not_two_to_the_depth() -> None:
    """The recursion check visited every comprehension once per enclosing level (2^depth visits:
    20 levels took seconds, 100 never finished); each expression is now visited once per level."""
    from cupcake_py.rego.compile import checks

    calls = 0
    real = checks.expr_refs

    def counting(e: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > 60 * 60 * 4:  # (stop an exponential walk instead of waiting for it)
            raise AssertionError(f"expr_refs called {calls} times for 60 nested comprehensions")
        return real(e)

    term = "1"
    for i in range(60):
        term = f"[x{i} | x{i} := {term}; x{i} == x{i}]"
    checks.expr_refs = counting
    try:
        policy = compile_query([f"package t\n\np := {term}\n"], "x = data.t.p", entrypoint="eval")
    finally:
        checks.expr_refs = real
    assert calls < 60 * 60 * 4, calls
    rows = PolicyModule(compile_policy(policy), HostOptions(cache_dir=None)).instantiate().eval("eval")
    value = rows[0]["x"]
    for _ in range(60):
        value = value[0]
    assert value == 1


def test_long_operator_chains_compile() -> None:
    """`a + b + ...` nests one call per operator; OPA takes thousands of terms, so do we."""
    chain = " + ".join(["1"] * 3000)
    unions = " | ".join(f"{{{i % 7}}}" for i in range(3000))
    policy = compile_query([f"package t\n\np := {chain}\n\nq := count({unions})\n"], "x = [data.t.p, data.t.q]",
                           entrypoint="eval")
    rows = PolicyModule(compile_policy(policy), HostOptions(cache_dir=None)).instantiate().eval("eval")
    assert rows == [{"x": [3000, 7]}]
