"""AST rewrites for `cupcake test`, applied to copies of the parsed modules before they go
through the normal compile → plan → WASM path:

* coverage: before every body expression of every rule of a policy module, a
  `print("<MARK><file>:<row>")`; at the end of each body a mark for the rule head. The
  marks arrive through the host's print hook, so a line is covered exactly when the
  compiled WASM reached that expression (WASM has no statement trace of its own).
* diagnosis of a failing test: rules `cupcakediag_<n>_<k> contains {locals}` holding
  the body prefix up to expression k, and `cupcakediag_<n>_<k>_op<j>` with the operands of
  expression k (evaluated under that expression's `with` modifiers)."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from cupcake_py.authoring.testing.marks import MARK, Coverable
from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A


def _print_expr(text: str, loc: Location) -> A.Expr:
    return A.Expr([A.Term(A.ref_of("print", loc), loc), A.Term(A.String(text), loc)], location=loc)


def instrument_module(module: A.Module, cov: Coverable) -> A.Module:
    """A copy of `module` with coverage marks in every rule body (else branches included)."""
    from cupcake_py.authoring import astq  # (coverage and diagnosis only: a passing run never loads them)

    m = copy.deepcopy(module)
    for rule in m.rules:
        for r in astq.rule_chain(rule):
            file = r.location.file or m.package.location.file
            body: list[A.Expr] = []
            for e in r.body:
                if not e.generated and e.location.row:
                    cov.add(file, e.location.row)
                    body.append(_print_expr(f"{MARK}{file}:{e.location.row}", e.location))
                body.append(e)
            head_row = r.head.location.row or r.location.row
            cov.add(file, head_row)
            body.append(_print_expr(f"{MARK}{file}:{head_row}", r.head.location))
            for i, e in enumerate(body):
                e.index = i
            r.body = body
    return m


# ----------------------------------------------------------------------------- diagnosis

@dataclass
class DiagPlan:
    """The diagnostic rules added for one failing test: one per body prefix length 1..n."""

    prefixes: list[str]
    exprs: list[A.Expr]


def _locals(body: list[A.Expr], names_in_scope: set[str]) -> list[str]:
    from cupcake_py.authoring.lint_hygiene import _declared

    out: list[str] = []
    for e in body:
        for name, _ in _declared(e):
            if not name.startswith(("_", "$")) and name not in out and name not in names_in_scope:
                out.append(name)
    return out


def _bindings(names: list[str], loc: Location) -> A.Term:
    return A.Term(A.Object([(A.Term(A.String(n), loc), A.Term(A.Var(n), loc)) for n in names]), loc)


def add_diagnosis(module: A.Module, rule: A.Rule, n: int) -> DiagPlan:
    """Append diagnostic rules for test `rule` to `module` (a copy owned by the caller)."""
    scope = {r.head.name for r in module.rules} | {i.alias or "" for i in module.imports}
    body = [e for e in rule.body if not e.generated]
    plan = DiagPlan([], body)
    loc = rule.location
    for k in range(len(body)):
        names = _locals(body[: k + 1], scope)
        name = f"cupcakediag_{n}_{k}"
        head = A.Head(A.Ref([A.var_term(name, loc)]), key=_bindings(names, loc), location=loc)
        module.rules.append(A.Rule(head, copy.deepcopy(body[: k + 1]), location=loc))
        plan.prefixes.append(name)
    return plan


def _probed(e: A.Expr) -> list[A.Term]:
    """The operands of expression `e` that add_operands gives a rule, in order."""
    if isinstance(e.terms, A.Term):
        return [e.terms]
    if not isinstance(e.terms, list):
        return []
    return [o for o in e.operands if not (e.operator in ("eq", "assign") and isinstance(o.value, A.Var))]


def operand_texts(e: A.Expr) -> list[str]:
    """The Rego text of each operand add_operands probes (`count(deny)`, `input.user`)."""
    from cupcake_py.rego.printer import print_term

    return [print_term(o).strip() for o in _probed(e)]


def add_operands(module: A.Module, rule: A.Rule, n: int, k: int) -> list[str]:
    """Rules holding each operand of body expression k, evaluated after the prefix before
    it and under its `with` modifiers."""
    body = [e for e in rule.body if not e.generated]
    e = body[k]
    names: list[str] = []
    for j, operand in enumerate(_probed(e)):  # (not the variable being bound: it has no value yet)
        loc = operand.location if operand.location.row else e.location
        name = f"cupcakediag_{n}_{k}_op{j}"
        value_var = f"cupcakediagv{j}"
        probe = A.Expr([A.Term(A.ref_of("assign", loc), loc), A.var_term(value_var, loc), copy.deepcopy(operand)],
                       with_=copy.deepcopy(e.with_), location=loc)
        head = A.Head(A.Ref([A.var_term(name, loc)]), key=A.var_term(value_var, loc), location=loc)
        module.rules.append(A.Rule(head, [*copy.deepcopy(body[:k]), probe], location=loc))
        names.append(name)
    return names
