"""Shared pure builtin calls: a call of a deterministic builtin whose arguments are only
constants and refs into `input` (`split(input.tool_input.command, " ")`) gives the same
answer wherever it appears in one evaluation. When such a call appears in two or more
places of the bundle, the planner routes every occurrence through one synthesized
zero-argument IR function (`shared.<i>.<builtin>`), which the WASM runtime memoizes per
evaluation (and per `with` scope: a WithStmt pushes a fresh memo frame, so a call under
`with input as ...` sees the replaced input).

In: the compiled AST (`count_calls`) and one call's builtin name and argument terms
(`call_key`). Out: a hashable key per distinct call (None when the call is not shareable)
and the number of places each key appears. Semantics are those of the direct call: the
synthesized function evaluates the same argument refs and the same builtin; an undefined
argument or a builtin error (undefined, or raised in strict mode) gives an undefined result,
or the same raised error. Nothing here fails: a term it does not understand is simply not
shared.
"""

from __future__ import annotations

from collections import Counter

from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.nodes import Compiled, CRule
from cupcake_py.rego.compile.walk import body_exprs, term_exprs

# Deterministic builtins whose cost is worth a memo lookup (string building/splitting and
# decoding). Cheap boolean tests (contains, startswith) are left direct; non-deterministic
# builtins (time, rand, http, uuid, opa.runtime, print, net) must never be listed.
PURE_BUILTINS = frozenset({
    "split", "lower", "upper", "trim", "trim_space", "trim_left", "trim_right", "trim_prefix",
    "trim_suffix", "replace", "strings.replace_n", "concat", "sprintf", "json.unmarshal",
    "base64.decode", "regex.split", "regex.find_n",
})

Key = tuple[object, ...]


def _term_key(t: A.Term) -> Key | None:
    """A canonical key of a constant or input-rooted term (equal keys mean equal values
    within one evaluation); None for anything else."""
    v = t.value
    if isinstance(v, A.String | A.Boolean):
        return (type(v).__name__, v.value)
    if isinstance(v, A.Number):
        return ("n", v.text)
    if isinstance(v, A.Null):
        return ("null",)
    if isinstance(v, A.Var):
        return ("input",) if v.name == "input" else None
    if isinstance(v, A.Array):
        items = [_term_key(x) for x in v.items]
        return None if any(i is None for i in items) else ("a", *items)
    if isinstance(v, A.Ref):
        head = v.terms[0].value
        if not (isinstance(head, A.Var) and head.name == "input"):
            return None
        keys: list[Key | None] = [_term_key(k) if isinstance(k.value, A.String | A.Number) else None
                                  for k in v.terms[1:]]
        return None if any(k is None for k in keys) else ("input", *keys)
    return None


def call_key(name: str, args: list[A.Term]) -> Key | None:
    """The key of the call `name(args...)` (inputs only, no output term), or None when it
    is not a shareable call."""
    if name not in PURE_BUILTINS:
        return None
    keys = [_term_key(a) for a in args]
    if any(k is None for k in keys):
        return None
    if not any(k is not None and k[0] == "input" for k in keys):
        return None  # all-constant calls are not worth a function
    return (name, *keys)


def _rule_exprs(r: CRule) -> list[A.Expr]:
    out: list[A.Expr] = []
    c: CRule | None = r
    while c is not None:
        out.extend(body_exprs(c.body))
        for t in (c.key, c.value):
            if t is not None:
                out.extend(term_exprs(t))
        c = c.else_
    return out


def count_calls(compiled: Compiled, arity: dict[str, int]) -> Counter[Key]:
    """How many places each shareable call appears in the compiled rules. `arity` maps a
    builtin name to its number of inputs (an extra argument is the output term)."""
    counts: Counter[Key] = Counter()
    for g in compiled.groups.values():
        for r in g.rules:
            for e in _rule_exprs(r):
                t = e.terms
                if type(t) is not list or not t:
                    continue
                name = A.operator_name(t[0])
                n = arity.get(name or "")
                if name is None or n is None:
                    continue
                key = call_key(name, t[1:1 + n])
                if key is not None:
                    counts[key] += 1
    return counts
