"""Pass 5: checks on the compiled rules: unknown functions, call arity, `with` targets,
constant argument types, recursion (messages and locations as OPA reports them)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from cupcake_py.rego import ast as A
from cupcake_py.rego.compile import builtins as B
from cupcake_py.rego.compile.diagnostics import ErrorSink
from cupcake_py.rego.compile.nodes import CRule, Group, Node
from cupcake_py.rego.compile.walk import CLOSURES, LEAVES, body_exprs, level_terms, term_children, term_exprs
from cupcake_py.rego.errors import COMPILE, RECURSION, TYPE, RegoError

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any


def rule_chain(g: Group) -> Iterator[CRule]:
    for r in g.rules:
        c: CRule | None = r
        while c is not None:
            yield c
            c = c.else_


def rule_terms(c: CRule) -> list[A.Term]:
    return [t for t in (*c.rel, c.key, c.value) if t is not None]


def all_exprs(c: CRule) -> list[A.Expr]:
    out = body_exprs(c.body)
    for t in rule_terms(c):
        out += term_exprs(t)
    return out


def check_withs_and_calls(groups: dict[tuple[str, ...], Group], withs: ErrorSink, funcs: ErrorSink,
                          types: ErrorSink, deprecated: ErrorSink | None = None, void: ErrorSink | None = None) -> None:
    """`with` targets (`withs`) and OPA's undefined-function/arity stage (`funcs`) with its type
    errors on calls (`types`), in one walk over every expression (each sink keeps source order);
    `deprecated`: calls of OPA's deprecated builtins from v1 modules; `void`: `print` used as a value."""
    for g in groups.values():
        for c in rule_chain(g):
            v1 = deprecated is not None and c.module.rego_version != "v0"
            for e in all_exprs(c):
                for w in e.with_:
                    check_with_target(w, groups, withs)
                    check_with_function(w, groups, types)
                name = check_call(e, groups, funcs, types, void)
                if v1 and name in B.DEPRECATED and deprecated is not None:
                    deprecated.append(RegoError(TYPE, f"deprecated built-in function calls in expression: {name}",
                                                e.location))


def check_call(e: A.Expr, groups: dict[tuple[str, ...], Group], funcs: ErrorSink,
               types: ErrorSink, void: ErrorSink | None = None) -> str | None:
    """Check one call expression; returns the builtin it calls (None: not a builtin call)."""
    if not isinstance(e.terms, list):
        return None
    op = e.terms[0].value
    if not isinstance(op, A.Ref):
        return None
    name = op.dotted()
    if name is None or name in ("eq", "assign"):
        return None
    if name == "print" and e.generated:  # a nested call the compiler pulled out: its value is used
        from cupcake_py.rego.printer import print_term

        call = A.Term(A.Call(op, e.terms[1:-1]), e.location)
        (void if void is not None else funcs).append(RegoError(TYPE, f"{print_term(call)} used as value",
                                                               e.location))
        return None
    got = len(e.terms) - 1
    if name.startswith("data."):
        g = groups.get(tuple(name.split(".")[1:]))
        if g is None:
            funcs.append(RegoError(TYPE, f"undefined function {name}", e.location))
            return None
        n = g.arity
        if not _arity_ok(e, n, got, False):
            act = got - 1 if e.generated else got
            funcs.append(RegoError(TYPE, f"function {name} has arity {n}, got {act} argument"
                                         f"{'' if act == 1 else 's'}", e.location))
        elif g.kind != "function":
            types.append(RegoError(TYPE, f"undefined function {name}", e.location))
        return None
    b = B.lookup(name)
    if b is None:
        funcs.append(RegoError(TYPE, f"undefined function {name}", e.location))
        return None
    args = e.terms[1:b.arity + 1]
    if not _arity_ok(e, b.arity, got, b.void):
        user = e.terms[1:len(e.terms) - 1] if e.generated else e.terms[1:]
        funcs.append(arg_error(b, "arity mismatch", user, e.location))
    elif not all(k is None or _accepts(t, k) for k, t in zip(map(_kind, args), b.arg_types, strict=False)):
        types.append(arg_error(b, "invalid argument(s)", args, e.location))
    return name


def _arity_ok(e: A.Expr, n: int, got: int, void: bool) -> bool:
    """OPA's rule: a call written by the user may pass one extra (output) operand; a call the
    compiler pulled out of a nested position already carries its output operand."""
    if e.generated:
        return got == n + 1
    return got == n or (got == n + 1 and not void)


def arg_error(b: B.Builtin, what: str, args: list[A.Term], loc: A.Location) -> RegoError:
    have = ", ".join(_kind(a) or "any" for a in args)
    want = ", ".join((f"{t['name']}: " if t.get("name") else "") + type_text(t) for t in b.arg_types)
    return RegoError(TYPE, f"{b.name}: {what}", loc, (f"have: ({have})", f"want: ({want})"))


_KINDS: dict[type, str] = {
    A.Null: "null", A.Boolean: "boolean", A.Number: "number", A.String: "string", A.Array: "array",
    A.ArrayComprehension: "array", A.Object: "object", A.ObjectComprehension: "object", A.Set: "set",
    A.SetComprehension: "set", A.TemplateString: "string",
}


def _kind(t: A.Term) -> str | None:
    return _KINDS.get(type(t.value))


def _accepts(t: dict[str, Any], kind: str) -> bool:
    ty = t.get("type")
    if ty == "any":
        of = t.get("of")
        return any(_accepts(x, kind) for x in of) if isinstance(of, list) else True
    return ty == kind


def type_text(t: dict[str, Any] | None) -> str:
    """A builtin declaration's type in OPA's notation (`any<string, array[any]>`, `object[any: any]`)."""
    if not isinstance(t, dict):
        return "any"
    ty = str(t.get("type", "any"))
    if ty == "any":
        of = t.get("of")
        return f"any<{', '.join(type_text(x) for x in of)}>" if isinstance(of, list) else "any"
    if ty == "array":
        static = [type_text(x) for x in t.get("static") or []]
        dyn = t.get("dynamic")
        if static:
            return f"array<{', '.join(static + ([type_text(dyn) + '...'] if dyn else []))}>"
        return f"array[{type_text(dyn)}]"
    if ty == "object":
        dyn = t.get("dynamic")
        if isinstance(dyn, dict):
            return f"object[{type_text(dyn.get('key'))}: {type_text(dyn.get('value'))}]"
        fields = t.get("static") or []
        return "object<" + ", ".join(f"{x.get('key')}: {type_text(x.get('value'))}" for x in fields) + ">"
    if ty == "set":
        return f"set[{type_text(t.get('of'))}]"
    return ty


_TARGET_ERROR = "with keyword target must reference existing input, data, or a function"
_REPLACE = "with keyword replacing built-in function: "


def check_with_target(w: A.With, groups: dict[tuple[str, ...], Group], errors: ErrorSink) -> None:
    """`with` targets: input/data paths, functions or builtins; never part of a rule's value."""
    t = w.target.value
    loc = w.target.location
    ref = t if isinstance(t, A.Ref) else A.Ref([w.target]) if isinstance(t, A.Var) else None
    name = ref.dotted() if ref is not None else None
    if name is None:
        errors.append(RegoError(TYPE, _TARGET_ERROR, loc))
        return
    parts = tuple(name.split("."))
    if parts[0] == "input":
        return
    if parts[0] == "data":
        for i in range(1, len(parts) - 1):
            if parts[1:i + 1] in groups:
                errors.append(RegoError(COMPILE, "with keyword cannot partially replace virtual document(s)", loc))
                return
        return
    b = B.lookup(name)
    if b is None or name in B.COMPILE_TIME - {"print"}:
        if name in ("eq", "assign", "rego.metadata.chain", "rego.metadata.rule"):
            errors.append(RegoError(COMPILE, f'{_REPLACE}replacement of "{name}" invalid', loc))
        elif name == "print":
            errors.append(RegoError(COMPILE, f"{_REPLACE}target must not be a void function", loc))
        else:
            errors.append(RegoError(TYPE, _TARGET_ERROR, loc))
    elif parts[0] == "internal":
        errors.append(RegoError(COMPILE, f'{_REPLACE}replacement of internal function "{name}" invalid', loc))
    elif name in B.RELATIONS:
        errors.append(RegoError(COMPILE, f"{_REPLACE}target must not be a relation", loc))
    elif b.void:
        errors.append(RegoError(COMPILE, f"{_REPLACE}target must not be a void function", loc))


def _function_args(t: A.Term, groups: dict[tuple[str, ...], Group]) -> tuple[str, list[tuple[str, str]]] | None:
    """(name, [(argument name, type)]) of the function a `with` target or value names (None: a
    value). A user function's arguments are `any` (OPA infers no narrower type a mock could break)."""
    v = t.value
    ref = v if isinstance(v, A.Ref) else A.Ref([t]) if isinstance(v, A.Var) else None
    name = ref.dotted() if ref is not None else None
    if name is None:
        return None
    if name.startswith("data."):
        g = groups.get(tuple(name.split(".")[1:]))
        return (name, [("", "any")] * g.arity) if g is not None and g.kind == "function" else None
    b = B.lookup(name)
    if b is None or name in B.COMPILE_TIME:
        return None
    return name, [(str(a.get("name") or ""), type_text(a)) for a in b.arg_types]


def check_with_function(w: A.With, groups: dict[tuple[str, ...], Group], errors: ErrorSink) -> None:
    """A function mocked by another function (`with count as my_count`): OPA's type checker
    wants the same number of arguments (`count: arity mismatch` at the `with`, the value's
    argument types as `have`, the target's named ones as `want`), called or not."""
    target = _function_args(w.target, groups)
    value = _function_args(w.value, groups) if target is not None else None
    if target is None or value is None or len(target[1]) == len(value[1]):
        return
    have = ", ".join(ty for _, ty in value[1])
    want = ", ".join(f"{n}: {ty}" if n else ty for n, ty in target[1])
    errors.append(RegoError(TYPE, f"{target[0]}: arity mismatch", w.location, (f"have: ({have})", f"want: ({want})")))


def expr_refs(e: A.Expr) -> list[A.Ref]:
    """The refs an expression evaluates: its operator, and the refs in its operands, its
    `every` domain, its `with` values and the expressions of comprehensions inside them."""
    out: list[A.Ref] = []
    if isinstance(e.terms, list):
        out.append(A.call_operator(e.terms))
    for x in level_terms(e):
        _refs_into(x, out)
    return out


def _refs_into(t: A.Term, out: list[A.Ref]) -> None:
    v = t.value
    kind = type(v)
    if kind is A.Var and v.name == "data":  # type: ignore[union-attr]
        out.append(A.Ref([t]))  # the whole of data: every rule (OPA: a rule that reads it is recursive)
        return
    if kind in LEAVES:
        return
    if type(v) is A.Ref:
        out.append(v)
    if kind in CLOSURES:
        # only the expressions not inside another one: expr_refs reaches the nested ones (walking
        # every depth here too made nested comprehensions cost 2^depth)
        for e in _outer_exprs(t):
            out += expr_refs(e)
    else:
        for c in v.terms[1:] if kind is A.Ref else term_children(v):  # type: ignore[union-attr]
            _refs_into(c, out)  # (a ref's head is the ref itself, not a bare `data`)


def _outer_exprs(t: A.Term, out: list[A.Expr] | None = None) -> list[A.Expr]:
    """The expressions of `term_exprs(t)` that are not inside another of them, in its order."""
    out = [] if out is None else out
    v = t.value
    if type(v) in LEAVES:
        return out
    if type(v) is A.ArrayComprehension or type(v) is A.SetComprehension:
        _outer_exprs(v.term, out)
        out.extend(v.body)
    elif type(v) is A.ObjectComprehension:
        _outer_exprs(v.key, out)
        _outer_exprs(v.value, out)
        out.extend(v.body)
    elif type(v) is A.TemplateString:
        for p in v.parts:
            if isinstance(p, A.Expr):
                out.append(p)
            else:
                _outer_exprs(p, out)
    else:
        for c in term_children(v):
            _outer_exprs(c, out)
    return out


def ref_targets(ref: A.Ref, tree: Node) -> list[Group]:
    """Groups a data ref may evaluate (OPA's dynamic lookup): a constant key follows one child,
    a variable key any child; every group met on the way and all below the end are included."""
    if not isinstance(ref, A.Ref) or not isinstance(ref.terms[0].value, A.Var) or ref.terms[0].value.name != "data":
        return []
    out: list[Group] = []
    seen: set[int] = set()

    def add(g: Group | None) -> None:
        if g is not None and id(g) not in seen:
            seen.add(id(g))
            out.append(g)

    _walk_targets(ref, tree, 1, add)
    return out


def _walk_targets(ref: A.Ref, node: Node, i: int, add: Callable[[Group | None], None]) -> None:
    """ref_targets below `node` from `ref.terms[i]` (a function, not a closure naming itself: that
    is a reference cycle, left to the collector that a bundle build pauses)."""
    if i >= len(ref.terms):
        for g in node.groups():
            add(g)
        return
    if node.group is not None:
        add(node.group)
        return
    k = ref.terms[i].value
    if isinstance(k, A.String):
        nxt = node.children.get(k.value)
        if nxt is not None:
            _walk_targets(ref, nxt, i + 1, add)
    elif isinstance(k, A.Var | A.Ref | A.Call):
        for child in node.children.values():
            _walk_targets(ref, child, i + 1, add)


def check_recursion(groups: dict[tuple[str, ...], Group], tree: Node, errors: ErrorSink) -> None:
    """Each rule (definition or `else`) whose references lead back to its own document, as
    OPA reports it: `rule data.a.p is recursive: data.a.p -> data.a.q -> data.a.p`."""
    own: dict[int, list[tuple[str, ...]]] = {}  # id(rule) -> groups it references
    out: dict[tuple[str, ...], list[tuple[str, ...]]] = {}  # group -> groups any of its rules reference
    for path, g in groups.items():
        union: dict[tuple[str, ...], None] = {}  # insertion-ordered sets: a rule that walks
        for c in rule_chain(g):  # data.cupcake.policies references every policy's groups
            deps: dict[tuple[str, ...], None] = {}
            refs: list[A.Ref] = []
            for term in rule_terms(c):  # (a head value left in place: `p := data`)
                _refs_into(term, refs)
            for e in all_exprs(c):
                refs += expr_refs(e)
            for ref in refs:
                for t in ref_targets(ref, tree):
                    deps[t.path] = None
            own[id(c)] = list(deps)
            union.update(deps)
        out[path] = list(union)
    for path in sorted(groups):
        for c in rule_chain(groups[path]):
            cycle = _path_back(own[id(c)], path, out)
            if cycle is not None:
                chain = " -> ".join("data." + ".".join(x) for x in [path, *cycle])
                errors.append(RegoError(RECURSION, f"rule data.{'.'.join(path)} is recursive: {chain}", c.location))


def _path_back(start: list[tuple[str, ...]], target: tuple[str, ...],
               out: dict[tuple[str, ...], list[tuple[str, ...]]]) -> list[tuple[str, ...]] | None:
    """Shortest group path from one of `start` to `target` (breadth first, deterministic)."""
    prev: dict[tuple[str, ...], tuple[str, ...] | None] = {}
    queue: list[tuple[str, ...]] = []
    for s in sorted(start):
        if s not in prev:
            prev[s] = None
            queue.append(s)
    i = 0
    while i < len(queue):
        cur = queue[i]
        i += 1
        if cur == target:
            path = [cur]
            while (before := prev[path[-1]]) is not None:
                path.append(before)
            return path[::-1]
        for nxt in sorted(out.get(cur, [])):
            if nxt not in prev:
                prev[nxt] = cur
                queue.append(nxt)
    return None
