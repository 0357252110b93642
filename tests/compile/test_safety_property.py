"""Property: any permutation of a body whose variables form a dependency chain compiles (the
safety pass reorders it) and the ordered body binds every variable before using it. The body
uses unification only (`:=` must precede every use, by OPA's rules)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.rego import ast as A
from cupcake_py.rego import parse_module
from cupcake_py.rego.compile import compile_modules
from cupcake_py.rego.compile.walk import vars_shallow

N = 6


def _exprs(n: int) -> list[str]:
    """x0 from input; each later var from one or two earlier ones, in several forms."""
    out = ["x0 = input.a"]
    for i in range(1, n):
        j = (i * 7) % i
        out.append([f"x{i} = x{j} + {i}", f"x{i} = [x{j}, 1][0]", f"count([x{j}], x{i})",
                    f"[x{i}, _] = [x{j}, x{i - 1}]"][i % 4])
    out.append(f"x{n - 1} > -100")
    out.append(f"not x{n - 1} == 12345")
    out.append(f"every y in [x0] {{ y != x{n - 1} + 999 }}")
    return out


@settings(max_examples=60, deadline=None)
@given(st.permutations(_exprs(N)))
def test_any_order_compiles_and_is_safe(exprs: list[str]) -> None:
    src = "package a\np if {\n" + "\n".join(f"\t{e}" for e in exprs) + "\n}\n"
    compiled = compile_modules([parse_module(src, "m.rego")])
    body = compiled.groups[("a", "p")].rules[0].body
    bound: set[str] = set()
    for e in body:
        t = e.terms
        if isinstance(t, list) and A.operator_name(t[0]) == "eq":
            used = vars_shallow(t[2], set()) if isinstance(t[1].value, A.Var) else set()
            assert used <= bound, (used, bound, src)
            bound |= vars_shallow(t[1], set()) | vars_shallow(t[2], set())
        elif isinstance(t, list):
            bound |= vars_shallow(t[-1], set())
