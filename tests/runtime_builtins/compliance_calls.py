"""Direct builtin calls on constants, taken from OPA's compliance cases at test time.

Only cases of one shape are used: a single module whose queried rule has a body made of
  - constant bindings  `v = <literal>` / `v := <literal>` / `v = data.a.b` / `v = input.x`,
  - calls of native builtins `f(args..., out)`, `out = f(args)`, `out := f(args)`,
    `not f(args...)`, operator forms `out = a + b` and comparisons `a != b`,
  - equality checks `v = <literal>` against an already bound variable,
with the head `p := v`, `p contains v`, `p if`, or a one-line `p := f(args)`.
Every builtin call runs in runtime.wasm (harness.Runtime); this module only substitutes
constants into argument texts and compares the rule value with `want_result`. Any other
shape (comprehensions, several rules, `with`, ...) is skipped, never approximated.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from cupcake_py.core.values import dump_rego, parse_rego
from tests.compliance.suite import DEFAULT_SUITE

SUITE = DEFAULT_SUITE  # $CUPCAKE_COMPLIANCE_SUITE or <repo>/../shared/rego-compliance/v1

ARITY = {
    "abs": 1, "all": 1, "and": 2, "any": 1, "array.concat": 2, "array.reverse": 1, "array.slice": 3,
    "base64.decode": 1, "base64.encode": 1, "base64.is_valid": 1, "base64url.decode": 1,
    "base64url.encode": 1, "bits.and": 2, "bits.lsh": 2, "bits.negate": 1, "bits.or": 2,
    "bits.rsh": 2, "bits.xor": 2, "ceil": 1, "concat": 2, "contains": 2, "count": 1, "div": 2,
    "endswith": 2, "equal": 2, "floor": 1, "format_int": 2, "graph.reachable": 2, "gt": 2,
    "gte": 2, "indexof": 2, "internal.member_2": 2, "internal.member_3": 3, "intersection": 1,
    "is_array": 1, "is_boolean": 1, "is_null": 1, "is_number": 1, "is_object": 1, "is_set": 1,
    "is_string": 1, "json.filter": 2, "json.is_valid": 1, "json.marshal": 1, "json.remove": 2,
    "json.unmarshal": 1, "lower": 1, "lt": 2, "lte": 2, "max": 1, "min": 1, "minus": 2, "mul": 2,
    "neq": 2, "net.cidr_contains": 2, "net.cidr_intersects": 2, "net.cidr_overlap": 2,
    "numbers.range": 2, "object.filter": 2, "object.get": 3, "object.keys": 1, "object.remove": 2,
    "object.union": 2, "object.union_n": 1, "or": 2, "plus": 2, "product": 1, "rem": 2,
    "replace": 3, "round": 1, "set_diff": 2, "sort": 1, "split": 2, "startswith": 2,
    "strings.replace_n": 2, "strings.reverse": 1, "substring": 3, "sum": 1, "to_number": 1,
    "trim": 2, "trim_left": 2, "trim_prefix": 2, "trim_right": 2, "trim_space": 1,
    "trim_suffix": 2, "type_name": 1, "union": 1, "upper": 1, "walk": 1,
}
INFIX = {"+": "plus", "-": "minus", "*": "mul", "/": "div", "%": "rem", "&": "and", "|": "or",
         "==": "equal", "!=": "neq", "<": "lt", "<=": "lte", ">": "gt", ">=": "gte"}
COMPARISONS = {"equal", "neq", "lt", "lte", "gt", "gte"}

VAR = re.compile(r"(?!(?:true|false|null)$)[A-Za-z_][A-Za-z0-9_]*$")
REF = re.compile(r"(data|input)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])+)$")
CALL = re.compile(r"(not\s+)?([a-z_][a-z0-9_.]*)\((.*)\)$", re.S)


class Unsupported(Exception):
    """The case is not a direct builtin call on constants."""


@dataclass(frozen=True)
class Case:
    topic: str
    note: str
    builtins: tuple[str, ...]
    rule: str                       # the rule's body lines (for failure messages)
    steps: tuple[tuple[str, ...], ...]
    head: str                       # "value", "contains", "true"
    head_var: str
    want: Any                       # expected rule value (JSON form) or None = undefined


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split at top-level occurrences of sep (outside brackets and strings)."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(text):
        c = text[i]
        if c in "\"`":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if c == '"' and text[j] == "\\" else 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if depth == 0 and text.startswith(sep, i):
            parts.append("".join(cur).strip())
            cur = []
            i += len(sep)
            continue
        cur.append(c)
        i += 1
    parts.append("".join(cur).strip())
    return parts


def substitute(text: str, env: dict[str, str]) -> str:
    """Replace bound variable names (outside string literals) by their literal texts."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c in "\"`":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if c == '"' and text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(text, i)
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.")):
            word = m.group()
            out.append(env.get(word, word))
            i = m.end()
            continue
        out.append(c)
        i += 1
    return "".join(out)


def resolve_ref(text: str, data: Any, inp: Any) -> str | None:
    m = REF.match(text)
    if not m:
        return None
    node = data if m.group(1) == "data" else inp
    for part in re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]", m.group(2)):
        key: Any = part[0] if part[0] else int(part[1])
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            raise Unsupported("undefined reference") from None
    return dump_rego(node)


def expression(text: str) -> tuple[str, list[str]] | None:
    """A builtin call or infix operation: (builtin, argument texts)."""
    for op in sorted(INFIX, key=len, reverse=True):
        parts = split_top(text, f" {op} ")
        if len(parts) == 2:
            return INFIX[op], parts
    m = CALL.match(text)
    if m and not m.group(1) and m.group(2) in ARITY:
        return m.group(2), split_top(m.group(3))
    return None


def join_lines(body: str) -> list[str]:
    """Body statements, joining lines inside open brackets (multi-line literals)."""
    out: list[str] = []
    cur = ""
    for ln in body.strip().splitlines():
        joined = bool(cur)
        cur = f"{cur} {ln.strip()}" if cur else ln.strip()
        if cur and sum(cur.count(c) for c in "([{") == sum(cur.count(c) for c in ")]}"):
            out.append(re.sub(r",\s*([}\]])", r"\1", cur) if joined else cur)  # drop trailing commas
            cur = ""
    if cur:
        raise Unsupported("unbalanced brackets")
    return out


def check_literal(text: str, known: dict[str, str]) -> None:
    """text must be a Rego literal once bound variables are substituted."""
    try:
        parse_rego(substitute(text, known))
    except ValueError:
        raise Unsupported(f"not a constant: {text!r}") from None


def parse_case(topic: str, case: dict[str, Any]) -> Case:
    mods = case.get("modules") or []
    if len(mods) != 1 or "with " in mods[0]:
        raise Unsupported("needs one module without `with`")
    qm = re.fullmatch(r"data\.([\w.]+)\.(\w+) = (\w+)", case["query"])
    if not qm:
        raise Unsupported("query shape")
    rule = qm.group(2)
    src = mods[0]
    starts = [m for m in re.finditer(rf"^{rule}\b.*$", src, re.M)]
    if len(starts) != 1:
        raise Unsupported("rule defined once")
    head_line = starts[0].group()
    data = case.get("data", {})
    inp = case.get("input")
    if "input_term" in case:
        try:
            inp = parse_rego(case["input_term"])
        except ValueError:
            raise Unsupported("input_term") from None
    hm = re.fullmatch(rf"{rule}(?: := (.+)| contains (\w+))? if \{{", head_line)
    if hm:
        body = src[starts[0].end():].split("\n}", 1)[0]
        lines = join_lines(body)
        head = "value" if hm.group(1) else "contains" if hm.group(2) else "true"
        head_var = hm.group(1) or hm.group(2) or ""
    elif m := re.fullmatch(rf"{rule} := (.+)", head_line):
        lines, head, head_var = [f"__head__ = {m.group(1)}"], "value", "__head__"
    else:
        raise Unsupported("head shape")
    steps = []
    used: list[str] = []
    known: dict[str, str] = {}  # variable -> literal text (call outputs: "null" placeholder)
    for line in lines:
        neg = line.startswith("not ")
        text = line[4:] if neg else line
        assign = split_top(text, " := ")
        if len(assign) != 2:
            assign = split_top(text, " = ")
        lhs, rhs = (assign if len(assign) == 2 else ("", text))
        if (ref := resolve_ref(rhs, data, inp)) is not None:
            rhs = ref
        call = expression(rhs)
        if call is None and lhs == "" and (m := CALL.match(text)) and m.group(2) in ARITY:
            call = m.group(2), split_top(m.group(3))
        if call:
            name, args = call
            args = [r if (r := resolve_ref(a, data, inp)) is not None else a for a in args]
            n = ARITY[name]
            if lhs:
                args = [*args, lhs]
            if name in COMPARISONS and len(args) == 2 and not lhs:
                out = ""  # a comparison statement: must hold
            elif len(args) == n + 1:
                out = args.pop()
            elif len(args) == n:
                out = ""
            else:
                raise Unsupported(f"arity of {name}")
            if out and not VAR.match(out) and re.search(r"\b(?!true\b|false\b|null\b|set\b)[A-Za-z_]\w*", re.sub(r'"(?:[^"\\]|\\.)*"', "", out)):
                raise Unsupported("output pattern with variables")
            for a in args:
                check_literal(a, known)
            if out and VAR.match(out):
                known.setdefault(out, "null")
            elif out:
                check_literal(out, known)
            steps.append(("call", name, "not" if neg else "", out, *args))
            used.append(name)
        elif lhs and not neg:
            check_literal(rhs, known)
            if VAR.match(lhs):
                known.setdefault(lhs, substitute(rhs, known))
            else:
                check_literal(lhs, known)
            steps.append(("bind", lhs, rhs))
        else:
            raise Unsupported(f"statement {line!r}")
    if not used:
        raise Unsupported("no native builtin call")
    want: Any
    # strict_error: OPA's strict mode errors; without it (WebAssembly) the builtin is
    # undefined, unless want_result gives the non-strict value.
    if case.get("strict_error") and "want_result" not in case:
        want = [] if head == "contains" else None
    elif "want_result" in case:
        res = case["want_result"]
        if not res:
            want = None
        elif len(res) == 1 and set(res[0]) == {qm.group(3)}:
            want = res[0][qm.group(3)]
        else:
            raise Unsupported("result shape")
    else:
        raise Unsupported("error case")
    return Case(topic, case["note"], tuple(used), "\n".join(lines), tuple(steps), head, head_var, want)


def load(topics: list[str]) -> tuple[list[Case], int]:
    """Usable cases of the topics, and how many cases were skipped."""
    cases, skipped = [], 0
    for topic in topics:
        for f in sorted((SUITE / topic).glob("*.json")):
            for raw in json.loads(f.read_text())["cases"]:
                try:
                    cases.append(parse_case(topic, raw))
                except Unsupported:
                    skipped += 1
    return cases, skipped


def call_text(rt: Any, name: str, args: list[str]) -> str | None:
    """Rego text of a builtin result (sets stay sets for later arguments); None = undefined."""
    rt.reset()
    addr = rt.call_addr(name, *(rt.parse(a) for a in args))
    return rt.rego_text(addr) if addr else None


def equal(rt: Any, a: str, b: str) -> bool:
    return call_text(rt, "equal", [a, b]) == "true"


def run(rt: Any, case: Case) -> Any:
    """The rule's value in JSON form (sets as sorted arrays) computed by the runtime's
    builtins; None = undefined. A `walk` bound to a `contains` head is a relation: its
    pairs are the set's elements."""
    env: dict[str, str] = {}
    defined, relation = True, False
    for step in case.steps:
        if step[0] == "bind":
            _, var, text = step
            text = substitute(text, env)
            if VAR.match(var) and var not in env:
                env[var] = text
            elif not equal(rt, substitute(var, env), text):
                defined = False
                break
            continue
        _, name, neg, out, *args = step
        text = call_text(rt, name, [substitute(a, env) for a in args])
        if text is None:
            ok = False
        elif not out:
            ok = text != "false"
        elif VAR.match(out) and out not in env:
            env[out] = text
            relation = relation or (name == "walk" and out == case.head_var and case.head == "contains")
            ok = True
        else:
            ok = equal(rt, substitute(out, env), text)
        if ok == bool(neg):
            defined = False
            break
    if case.head == "contains":
        if not defined:
            return []
        value = json.loads(rt.json_text(rt.parse(substitute(case.head_var, env))))
        return value if relation else [value]
    if not defined:
        return None
    if case.head == "true":
        return True
    return json.loads(rt.json_text(rt.parse(substitute(case.head_var, env))))
