"""The compile pipeline: declarations -> resolve -> flatten -> rule tree -> with targets ->
calls -> safety -> recursion -> types. Errors are collected per stage and, like OPA, only the
first stage with errors is reported (see `diagnostics`)."""

from __future__ import annotations

from collections import defaultdict

from cupcake_py.core.deep_stack import on_deep_stack
from cupcake_py.rego import ast as A
from cupcake_py.rego.ast import NotBody
from cupcake_py.rego.compile import builtins as B
from cupcake_py.rego.compile import rules as R
from cupcake_py.rego.compile.checks import (
    check_call,
    check_recursion,
    check_with_function,
    check_with_target,
    check_withs_and_calls,
)
from cupcake_py.rego.compile.declarations import check_declarations
from cupcake_py.rego.compile.diagnostics import Stage, StagedErrors
from cupcake_py.rego.compile.flatten import Flattener
from cupcake_py.rego.compile.metadata import MetadataIndex
from cupcake_py.rego.compile.nodes import Compiled, CRule, Group
from cupcake_py.rego.compile.safety import Safety
from cupcake_py.rego.compile.scope import Resolver, import_env
from cupcake_py.rego.compile.walk import Names, body_exprs, is_generated, term_children, vars_shallow
from cupcake_py.rego.errors import MAX_ERRORS, UNSAFE_VAR, RegoError, RegoErrors


def package_of(module: A.Module) -> tuple[str, ...]:
    return tuple(t.value.value for t in module.package.path.terms[1:] if isinstance(t.value, A.String))


class Compiler:
    def __init__(self) -> None:
        self.names = Names()
        self.diag = StagedErrors()
        self.groups: dict[tuple[str, ...], Group] = {}
        self.metadata = MetadataIndex([])

    @property
    def errors(self) -> list[RegoError]:
        """The errors to report: those of the first stage that found any."""
        return self.diag.reported()

    # ------------------------------------------------------------------ arity
    def arity(self, op: A.Ref) -> int | None:
        name = op.dotted()
        if name is None:
            return None
        if name.startswith("data."):
            g = self.groups.get(tuple(name.split(".")[1:]))
            return g.arity if g is not None and g.kind == "function" else None
        b = B.lookup(name)
        return b.arity if b is not None else None

    # ------------------------------------------------------------------ modules
    def modules(self, modules: list[A.Module]) -> Compiled:
        d = self.diag
        check_declarations(modules, d)
        rule_names: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for m in modules:
            for r in m.rules:
                rule_names[package_of(m)].add(r.head.name)
        crules: list[CRule] = []
        self.metadata = MetadataIndex(modules)
        for m in modules:
            env = import_env(m, rule_names[package_of(m)], d.at(Stage.IMPORTS))
            res = Resolver(env, self.names, d.at(Stage.LOCALS))
            for rule in m.rules:
                crules.append(self._crule(m, env.package, res.rule(rule), rule))
        conflicts = d.at(Stage.CONFLICTS)
        R.package_conflicts(modules, conflicts)
        self.groups, tree = R.build(crules, conflicts, [package_of(m) for m in modules], self.names.display)
        check_withs_and_calls(self.groups, d.at(Stage.WITH), d.at(Stage.FUNCS), d.at(Stage.TYPES),
                              d.at(Stage.DEPRECATED), d.at(Stage.VOID_CALLS))
        safety = Safety(self.arity, self.names)
        for g in self.groups.values():
            for c in g.rules:
                cr: CRule | None = c
                while cr is not None:
                    self._order(cr, safety)
                    cr = cr.else_
        check_recursion(self.groups, tree, d.at(Stage.RECURSION))
        entry = [g.path for g in self.groups.values() if any(_is_entrypoint(r.rule) for r in g.rules)]
        for m in modules:  # `entrypoint: true` at package scope: the package document
            if any(a.entrypoint and a.scope == "package" for a in m.annotations) and package_of(m) not in entry:
                entry.append(package_of(m))
        return Compiled(modules, self.groups, tree, self.names, entry)

    def _crule(self, module: A.Module, pkg: tuple[str, ...], rule: A.Rule, orig: A.Rule) -> CRule:
        h = rule.head
        prefix, rest = R.static_prefix(R.head_terms(rule))
        path = (*pkg, *prefix)
        flat = Flattener(self.names, lambda name, loc: self.metadata.term(name, module, orig, loc))
        body = flat.body(rule.body)
        tail: list[A.Expr] = []
        rel = [self._head_term(flat, t, tail) for t in rest]
        key = self._head_term(flat, h.key, tail) if h.key is not None else None
        value = self._head_term(flat, h.value, tail) if h.value is not None else None
        kind, leaf = "complete", "value"
        if h.args is not None:
            kind = "function"
        elif key is not None:
            kind = "set"
            if rest:
                kind, leaf, value, key = "object", "set", key, None
        elif rest:
            kind = "object"
        seen: set[str] = set()
        args = [self._arg(flat, a, tail, seen) for a in h.args] if h.args is not None else None
        c = CRule(path, rel, kind, rule, module, args, key, value, body + tail, None, rule.default, leaf)
        if rule.else_ is not None:
            c.else_ = self._crule(module, pkg, rule.else_, orig.else_ or orig)
        return c

    def _arg(self, flat: Flattener, t: A.Term, tail: list[A.Expr], seen: set[str]) -> A.Term:
        """A function argument that is not a pattern (holds refs, calls, templates), or a var
        already used by an earlier argument (`f(x, x)` matches equal arguments), becomes a
        fresh parameter var compared in the body."""
        if _is_pattern(t) and not (vars_shallow(t, set()) & seen):
            seen |= vars_shallow(t, set())
            return t
        tmp = flat.temp(t.location)
        pre: list[A.Expr] = []
        val = flat.term(t, pre)
        tail.extend(pre)
        tail.append(A.Expr([A.Term(A.ref_of("eq", t.location), t.location), tmp, val], location=t.location))
        return tmp

    def _head_term(self, flat: Flattener, t: A.Term, tail: list[A.Expr]) -> A.Term:
        """Flatten a head term; one holding refs is computed by the body into a temporary
        (so `q := xs[_]` iterates like OPA)."""
        out = flat.term(t, tail)
        if not _has_ref(out):
            return out
        tmp = flat.temp(t.location)
        tail.append(A.Expr([A.Term(A.ref_of("eq", t.location), t.location), tmp, out], location=t.location))
        return tmp

    def _order(self, c: CRule, safety: Safety) -> None:
        bound: set[str] = set()
        for a in c.args or []:
            bound |= vars_shallow(a, set())
        heads = [t for t in (*c.rel, c.key, c.value) if t is not None]
        universe: set[str] = set()
        for t in heads:
            vars_shallow(t, universe)
        in_body = body_vars(c.body) | bound
        c.body = safety.order(c.body, bound, universe)
        for t in heads:
            safety.closures(t, bound, universe, t.location)
        safety.flush(self.diag.at(Stage.SAFETY_BODIES))
        for name in sorted(universe - in_body):  # OPA: head vars must occur in the body
            shown = self.names.display(name)
            if not is_generated(name) or shown != name:
                self.diag.add(Stage.SAFETY_HEADS, RegoError(UNSAFE_VAR, f"var {shown} is unsafe", c.location))

    # ------------------------------------------------------------------ queries
    def query(self, body: list[A.Expr], compiled: Compiled) -> list[A.Expr]:
        self.groups = compiled.groups
        d = self.diag
        env = import_env(A.Module(A.Package(A.ref_of("data"))), set(), d.at(Stage.IMPORTS))
        res = Resolver(env, self.names, d.at(Stage.LOCALS))
        flat = Flattener(self.names)
        out = flat.body(res.query(body))
        for e in body_exprs(out):
            for w in e.with_:
                check_with_target(w, self.groups, d.at(Stage.WITH))
                check_with_function(w, self.groups, d.at(Stage.TYPES))
            check_call(e, self.groups, d.at(Stage.FUNCS), d.at(Stage.TYPES), d.at(Stage.VOID_CALLS))
        safety = Safety(self.arity, self.names)
        out = safety.order(out, set(), set())
        safety.flush(d.at(Stage.SAFETY_BODIES))
        return out


def body_vars(body: list[A.Expr]) -> set[str]:
    """Vars occurring in a flat body outside closures (negations included), as OPA's
    head-safety check collects them."""
    out: set[str] = set()
    for e in body:
        t = e.terms
        if isinstance(t, NotBody):
            out |= body_vars(t.body)
        elif isinstance(t, A.Every):
            vars_shallow(t.domain, out)
        elif isinstance(t, list):
            for x in t[1:]:
                vars_shallow(x, out)
        elif isinstance(t, A.Term):
            vars_shallow(t, out)
        for w in e.with_:
            vars_shallow(w.value, out)
    return out


def _is_pattern(t: A.Term) -> bool:
    """Vars and scalars, in collections of them (no refs, calls or comprehensions)."""
    v = t.value
    if isinstance(v, A.Array | A.Set | A.Object):
        return all(_is_pattern(x) for x in term_children(v))
    return isinstance(v, A.Var | A.Null | A.Boolean | A.Number | A.String)


def _has_ref(t: A.Term) -> bool:
    """A ref in `t` or in the collections it is made of."""
    v = t.value
    if isinstance(v, A.Array | A.Set | A.Object):
        return any(_has_ref(x) for x in term_children(v))
    return isinstance(v, A.Ref)


def _is_entrypoint(rule: A.Rule) -> bool:
    return any(a.entrypoint for a in rule.annotations)


def compile_modules(modules: list[A.Module]) -> Compiled:
    """Compile parsed modules; raise RegoErrors on any error."""
    c = Compiler()
    # The passes recurse per nested term: a 10000-operand `1 + 1 + ...` (OPA accepts it) is a
    # term 10000 deep; on_deep_stack gives them room, also for recursion through C (==, hash).
    compiled = on_deep_stack(lambda: c.modules(modules))
    if c.diag:
        raise RegoErrors(c.errors)
    compiled.names = c.names
    return compiled


def compile_query(body: list[A.Expr], compiled: Compiled) -> list[A.Expr]:
    c = Compiler()
    assert isinstance(compiled.names, Names)
    c.names = compiled.names
    out = on_deep_stack(lambda: c.query(body, compiled))
    if c.diag:
        raise RegoErrors(c.errors)
    return out


def check_modules(modules: list[A.Module]) -> list[RegoError]:
    """The compile errors of the modules (empty when they compile): those of the first
    failing stage, sorted by location, at most MAX_ERRORS."""
    c = Compiler()
    on_deep_stack(lambda: c.modules(modules))
    return c.errors[:MAX_ERRORS]
