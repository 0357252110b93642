"""Rego-like text of compiled terms and bodies (for tests and `--emit` debugging)."""

from __future__ import annotations

import json

from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.nodes import Compiled, CRule, NotBody


def term(t: A.Term) -> str:
    v = t.value
    if isinstance(v, A.Null):
        return "null"
    if isinstance(v, A.Boolean):
        return "true" if v.value else "false"
    if isinstance(v, A.Number):
        return v.text
    if isinstance(v, A.String):
        return json.dumps(v.value)
    if isinstance(v, A.Var):
        return v.name
    if isinstance(v, A.Ref):
        out = term(v.terms[0])
        for k in v.terms[1:]:
            out += f".{k.value.value}" if isinstance(k.value, A.String) and k.value.value.isidentifier() else (
                f"[{term(k)}]")
        return out
    if isinstance(v, A.Array):
        return "[" + ", ".join(term(x) for x in v.items) + "]"
    if isinstance(v, A.Set):
        return "{" + ", ".join(term(x) for x in v.items) + "}" if v.items else "set()"
    if isinstance(v, A.Object):
        return "{" + ", ".join(f"{term(k)}: {term(x)}" for k, x in v.items) + "}"
    if isinstance(v, A.ArrayComprehension):
        return f"[{term(v.term)} | {body(v.body)}]"
    if isinstance(v, A.SetComprehension):
        return f"{{{term(v.term)} | {body(v.body)}}}"
    if isinstance(v, A.ObjectComprehension):
        return f"{{{term(v.key)}: {term(v.value)} | {body(v.body)}}}"
    if isinstance(v, A.Call):
        return f"{v.operator.dotted()}(" + ", ".join(term(a) for a in v.args) + ")"
    return repr(v)


def expr(e: A.Expr) -> str:
    t = e.terms
    if isinstance(t, NotBody):
        s = f"not {{{body(t.body)}}}"
    elif isinstance(t, A.Every):
        k = f"{term(t.key)}, " if t.key is not None else ""
        s = f"every {k}{term(t.value)} in {term(t.domain)} {{{body(t.body)}}}"
    elif isinstance(t, list):
        op = A.operator_name(t[0])
        s = f"{term(t[1])} = {term(t[2])}" if op == "eq" else f"{op}(" + ", ".join(term(x) for x in t[1:]) + ")"
    elif isinstance(t, A.SomeDecl):
        s = "some " + ", ".join(term(x) for x in t.symbols)
    else:
        s = term(t)
    for w in e.with_:
        s += f" with {term(w.target)} as {term(w.value)}"
    return ("not " if e.negated else "") + s


def body(b: list[A.Expr]) -> str:
    return "; ".join(expr(e) for e in b)


def rule(c: CRule) -> str:
    head = c.name + "".join(f"[{term(t)}]" for t in c.rel)
    if c.args is not None:
        head += "(" + ", ".join(term(a) for a in c.args) + ")"
    if c.key is not None:
        head += f" contains {term(c.key)}"
    if c.value is not None:
        head += (" contains " if c.leaf == "set" and c.kind == "object" else " := ") + term(c.value)
    out = ("default " if c.default else "") + f"{c.kind} {head} if {{ {body(c.body)} }}"
    if c.else_ is not None:
        out += " else " + rule(c.else_)
    return out


def compiled(c: Compiled) -> str:
    return "\n".join(rule(r) for g in c.groups.values() for r in g.rules)
