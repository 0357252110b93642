"""Pass 1: resolve names and rename locals.

* imports and aliases (`import data.x.y as z`, `import input.x`) are substituted;
* vars naming a rule of the same package become `data.<pkg>.<rule>` refs;
* vars declared with `some`, `:=`, `every` and in comprehensions get unique names
  (`__localN__`) so nested scopes cannot collide; wildcards `_` become unique `$N` vars;
* `:=` redeclarations are reported like OPA (`var x assigned above` / `referenced above`).
Query top-level declarations keep their names (they are result bindings)."""

from __future__ import annotations

from cupcake_py.core.slotted import dataclass, field
from cupcake_py.rego import ast as A
from cupcake_py.rego.ast import NotBody
from cupcake_py.rego.compile.diagnostics import ErrorSink, SizedErrorSink
from cupcake_py.rego.compile.walk import SCALARS, Names, map_items
from cupcake_py.rego.errors import COMPILE, RegoError

ROOTS = ("data", "input")


@dataclass
class Env:
    """Names visible in one module."""

    package: tuple[str, ...]
    aliases: dict[str, list[A.Term]] = field(default_factory=dict)
    rule_names: set[str] = field(default_factory=set)


# How a name was introduced in a scope, and what redeclaring it with `:=`/`some` reports.
REDECLARED = {"assigned": "var {} assigned above", "declared": "var {} declared above",
              "arg": "arg {} redeclared", "seen": "var {} referenced above"}
VALUE_NAMES: dict[type, str] = {
    A.Null: "null", A.Boolean: "boolean", A.Number: "number", A.String: "string", A.Ref: "ref",
    A.Call: "call", A.Set: "set", A.ArrayComprehension: "arraycomprehension",
    A.SetComprehension: "setcomprehension", A.ObjectComprehension: "objectcomprehension",
    A.TemplateString: "templatestring",
}


@dataclass
class Scope:
    parent: Scope | None
    rename: bool
    declared: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)  # name -> assigned | declared | arg | seen
    some_decls: dict[str, A.Location] = field(default_factory=dict)  # `some x` (x's new name -> where)
    used: set[str] = field(default_factory=set)  # new names referenced after their declaration

    @property
    def referenced(self) -> set[str]:
        return {n for n, k in self.kinds.items() if k == "seen"}

    def lookup(self, name: str) -> str | None:
        s: Scope | None = self
        while s is not None:
            if name in s.declared:
                local = s.declared[name]
                s.used.add(local)
                return local
            s = s.parent
        return None


def import_env(module: A.Module, rule_names: set[str], errors: ErrorSink) -> Env:
    env = Env(tuple(t.value.value for t in module.package.path.terms[1:] if isinstance(t.value, A.String)))
    env.rule_names = rule_names
    for imp in module.imports:
        ref = imp.path.value
        if not isinstance(ref, A.Ref) or not isinstance(ref.terms[0].value, A.Var):
            errors.append(RegoError(COMPILE, "invalid import path", imp.location))
            continue
        root = ref.terms[0].value.name
        if root in ("future", "rego"):
            continue
        if root not in ROOTS:
            errors.append(RegoError(COMPILE, f"invalid import {root}: must begin with input or data",
                                    imp.location))
            continue
        if imp.alias is not None:
            name = imp.alias
        elif len(ref.terms) == 1:
            continue
        else:
            last = ref.terms[-1].value
            if not isinstance(last, A.String):
                errors.append(RegoError(COMPILE, "invalid import path", imp.location))
                continue
            name = last.value
        env.aliases[name] = ref.terms
    return env


class Resolver:
    def __init__(self, env: Env, names: Names, errors: SizedErrorSink) -> None:
        self.env = env
        self.names = names
        self.errors = errors

    # ------------------------------------------------------------------ vars
    def _global(self, name: str, loc: A.Location) -> list[A.Term] | None:
        if name in ROOTS:
            return None
        if name in self.env.aliases:
            return [A.Term(t.value, loc) for t in self.env.aliases[name]]
        if name in self.env.rule_names:
            return [A.var_term("data", loc)] + [A.string_term(p, loc) for p in self.env.package] + [
                A.string_term(name, loc)]
        return None

    def var(self, t: A.Term, scope: Scope) -> A.Term:
        v = t.value
        assert isinstance(v, A.Var)
        if v.name == "_":
            return A.Term(A.Var(self.names.wildcard()), t.location)
        local = scope.lookup(v.name)
        if local is not None:
            return A.Term(A.Var(local), t.location)
        g = self._global(v.name, t.location)
        if g is not None:
            return A.Term(A.Ref(g), t.location)
        scope.kinds.setdefault(v.name, "seen")
        return t

    # ------------------------------------------------------------------ terms
    def term(self, t: A.Term, scope: Scope) -> A.Term:
        v = t.value
        if type(v) in SCALARS:
            return t
        loc = t.location
        if isinstance(v, A.Var):
            return self.var(t, scope)
        if isinstance(v, A.Ref):
            return A.Term(A.Ref(self.ref_terms(v.terms, scope)), loc)
        items = map_items(v, lambda x: self.term(x, scope))
        if items is not None:
            return A.Term(items, loc)
        if isinstance(v, A.Call):
            return A.Term(A.Call(self.operator(v.operator, scope), [self.term(a, scope) for a in v.args]), loc)
        if isinstance(v, A.ArrayComprehension | A.SetComprehension):
            inner = Scope(scope, True)
            before = len(self.errors)
            body = self.body(v.body, inner)
            head = self.term(v.term, inner)
            self.check_unused(inner, before)
            return A.Term(type(v)(head, body), loc)
        if isinstance(v, A.ObjectComprehension):
            inner = Scope(scope, True)
            before = len(self.errors)
            body = self.body(v.body, inner)
            out = A.Term(A.ObjectComprehension(self.term(v.key, inner), self.term(v.value, inner), body), loc)
            self.check_unused(inner, before)
            return out
        if isinstance(v, A.TemplateString):
            parts: list[A.Term | A.Expr] = []
            for p in v.parts:
                if isinstance(p, A.Expr):
                    inner = Scope(scope, True)
                    parts.append(self.body([p], inner)[0])
                else:
                    parts.append(self.term(p, scope))
            return A.Term(A.TemplateString(parts, v.multi_line), loc)
        return t

    def ref_terms(self, terms: list[A.Term], scope: Scope) -> list[A.Term]:
        head = terms[0]
        rest = [self.term(x, scope) for x in terms[1:]]
        if isinstance(head.value, A.Var):
            h = self.var(head, scope)
            if isinstance(h.value, A.Ref):
                return h.value.terms + rest
            return [h] + rest
        return [self.term(head, scope)] + rest

    def operator(self, op: A.Ref, scope: Scope) -> A.Ref:
        h = op.terms[0].value
        if isinstance(h, A.Var) and h.name not in ROOTS and scope.lookup(h.name) is None:
            g = self._global(h.name, op.terms[0].location)
            if g is not None:
                return A.Ref(g + op.terms[1:])
        return op

    # ------------------------------------------------------------------ bodies
    def declare(self, t: A.Term, scope: Scope, kind: str, at: A.Location | None = None) -> None:
        """Declare every var of a pattern term in `scope` (kind: assigned for `:=`, declared for
        `some`/`every`); a name already introduced in this scope is an error, reported at the
        var (`:=`) or at `at` (the `some`/`every` expression), like OPA."""
        v = t.value
        if isinstance(v, A.Var):
            if v.name == "_":
                return
            prev = scope.kinds.get(v.name)
            if prev is not None:
                self.errors.append(RegoError(COMPILE, REDECLARED[prev].format(v.name), at or t.location))
            scope.declared[v.name] = self.names.local(v.name) if scope.rename else v.name
            scope.kinds[v.name] = kind
        elif isinstance(v, A.Array):
            for x in v.items:
                self.declare(x, scope, kind, at)
        elif isinstance(v, A.Object):
            for _k, x in v.items:
                self.declare(x, scope, kind, at)
        elif kind == "assigned":
            name = VALUE_NAMES.get(type(v), "value")
            self.errors.append(RegoError(COMPILE, f"cannot assign to {name}", t.location))

    def check_unused(self, scope: Scope, errors_before: int) -> None:
        """`some x` whose x is never used in its scope (skipped when the scope already erred)."""
        if len(self.errors) > errors_before:
            return
        for local, loc in scope.some_decls.items():
            if local not in scope.used:
                self.errors.append(RegoError(COMPILE, f"declared var {self.names.display(local)} unused", loc))

    def body(self, body: list[A.Expr], scope: Scope) -> list[A.Expr]:
        return [self.expr(e, scope) for e in body]

    def expr(self, e: A.Expr, scope: Scope) -> A.Expr:
        t = e.terms
        withs = [A.With(self.term(w.target, scope), self.term(w.value, scope), w.location) for w in e.with_]
        new: A.Term | list[A.Term] | A.SomeDecl | A.Every
        if isinstance(t, A.SomeDecl):
            syms: list[A.Term] = []
            for s in t.symbols:
                sv = s.value
                if isinstance(sv, A.Call):  # some [k,] v in xs
                    dom = self.term(sv.args[-1], scope)
                    for p in sv.args[:-1]:
                        self.declare(p, scope, "declared", e.location)
                    syms.append(A.Term(A.Call(sv.operator, [self.term(p, scope) for p in sv.args[:-1]] + [dom]),
                                       s.location))
                else:
                    self.declare(s, scope, "declared", e.location)
                    sname = s.value.name if isinstance(s.value, A.Var) else "_"
                    local = scope.declared.get(sname)
                    if local is None:  # `some _`
                        syms.append(self.term(s, scope))
                        continue
                    scope.some_decls.setdefault(local, e.location)
                    syms.append(A.Term(A.Var(local), s.location))
            new = A.SomeDecl(syms, t.location)
        elif isinstance(t, A.Every):
            dom = self.term(t.domain, scope)
            inner = Scope(scope, True)
            if t.key is not None:
                self.declare(t.key, inner, "declared", e.location)
            self.declare(t.value, inner, "declared", e.location)
            key = self.term(t.key, inner) if t.key is not None else None
            val = self.term(t.value, inner)
            before = len(self.errors)
            new = A.Every(key, val, dom, self.body(t.body, inner), t.location)
            self.check_unused(inner, before)
        elif isinstance(t, list):
            name = A.operator_name(t[0])
            if name == "assign" and len(t) == 3 and e.negated:
                self.errors.append(RegoError(COMPILE, "cannot assign vars inside negated expression", e.location))
                new = [A.Term(A.ref_of("eq", t[0].location), t[0].location)] + [self.term(x, scope) for x in t[1:]]
            elif name == "assign" and len(t) == 3:
                rhs = self.term(t[2], scope)
                self.declare(t[1], scope, "assigned")
                lhs = self.term(t[1], scope)
                new = [A.Term(A.ref_of("eq", t[0].location), t[0].location), lhs, rhs]
            else:
                op = t[0]
                if isinstance(op.value, A.Ref):
                    op = A.Term(self.operator(op.value, scope), op.location)
                new = [op] + [self.term(x, scope) for x in t[1:]]
        else:
            assert not isinstance(t, NotBody), "scoping runs before flattening introduces NotBody"
            new = self.term(t, scope)
        return A.Expr(new, e.negated, withs, e.index, e.generated, e.location)

    # ------------------------------------------------------------------ rules
    def rule(self, rule: A.Rule, outer_args: list[A.Term] | None = None) -> A.Rule:
        scope = Scope(None, True)
        before = len(self.errors)
        args = rule.head.args if rule.head.args is not None else outer_args
        new_args: list[A.Term] | None = None
        if args is not None:
            for a in args:
                self._declare_args(a, scope)
            new_args = [self.term(a, scope) for a in args]
            scope.used.clear()
        body = self.body(rule.body, scope)
        h = rule.head
        ref_terms = [h.ref.terms[0]] + [self.term(x, scope) for x in h.ref.terms[1:]]
        head = A.Head(A.Ref(ref_terms), new_args if rule.head.args is not None else None,
                      self.term(h.key, scope) if h.key is not None else None,
                      self.term(h.value, scope) if h.value is not None else None, h.assign, h.location)
        self.check_unused(scope, before)
        else_ = self.rule(rule.else_, args) if rule.else_ is not None else None
        return A.Rule(head, body, else_, rule.default, rule.annotations, rule.location)

    def _declare_args(self, t: A.Term, scope: Scope) -> None:
        """Function arguments; a name repeated in the args is one variable (OPA unifies them)."""
        v = t.value
        if isinstance(v, A.Var):
            if v.name != "_":
                scope.declared[v.name] = v.name
                scope.kinds[v.name] = "arg"
        elif isinstance(v, A.Array):
            for x in v.items:
                self._declare_args(x, scope)
        elif isinstance(v, A.Object):
            for _k, x in v.items:
                self._declare_args(x, scope)

    def query(self, body: list[A.Expr]) -> list[A.Expr]:
        scope = Scope(None, False)
        before = len(self.errors)
        out = self.body(body, scope)
        self.check_unused(scope, before)
        return out
