"""`cupcake query`: evaluate a Rego query against policies, data and an input, as `opa eval`
does, so an author can ask "what does my policy say about this input" without writing a test.

In: the query text; `-d` paths (.rego files are modules, .json/.yaml/.yml files data documents
mounted at their directory path, as `cupcake test` and `opa eval -d` load them); the input
document (JSON or YAML) or none. The query is compiled by cupcake-py (front end, planner, WASM)
and run under wasmtime, the same pipeline `cupcake eval` uses.
Out: `QueryResult`: one row per solution, each with the value of every expression of the query
(an expression that is a term or a non-boolean call gives its value, a comparison or assignment
gives true; a query of one expression gives its value even when false, as opa eval reports them) and the bindings of the query's variables; `opa_json`
renders OPA's `{"result": [{"expressions": [{"value", "text", "location"}], "bindings"}]}` shape.
Fails with RegoErrors (policy or query errors, file:row:col) or QueryError (unreadable input/data,
a runtime error of a builtin under --strict-builtin-errors, the deadline).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cupcake_py.core.errors import CupcakeError
from cupcake_py.rego import ast as A

# Expressions that hold or fail (their value is `true`): comparisons, unification, assignment, membership.
_BOOLEAN_CALLS = frozenset({"eq", "assign", "equal", "neq", "lt", "lte", "gt", "gte", "internal.member_2",
                            "internal.member_3"})
_ASSIGNING = frozenset({"eq", "assign"})  # bind variables: their value is `true` even alone
_VALUE_VAR = "cupcake_query_value_{}"


class QueryError(CupcakeError):
    pass


@dataclass
class Expression:
    text: str
    row: int
    col: int
    value_var: str | None  # the variable that carries the value (None: a boolean expression, value true)


@dataclass
class QueryResult:
    expressions: list[Expression]
    variables: list[str]  # the user's own variables, in order of appearance
    rows: list[dict[str, Any]] = field(default_factory=list)  # per solution: expression values + bindings

    def opa_json(self) -> dict[str, Any]:
        out = []
        for row in self.rows:
            exprs = [{"value": row["expressions"][i], "text": e.text, "location": {"row": e.row, "col": e.col}}
                     for i, e in enumerate(self.expressions)]
            entry: dict[str, Any] = {"expressions": exprs}
            if row["bindings"]:
                entry["bindings"] = row["bindings"]
            out.append(entry)
        return {"result": out} if out else {}


def _expression_text(query: str, expr: A.Expr, nxt: A.Expr | None) -> str:
    """The query's own text of one expression (from its location to the next one's)."""
    lines = query.splitlines() or [""]
    start = sum(len(line) + 1 for line in lines[:expr.location.row - 1]) + expr.location.col - 1
    end = len(query)
    if nxt is not None:
        end = sum(len(line) + 1 for line in lines[:nxt.location.row - 1]) + nxt.location.col - 1
    return query[start:end].strip().rstrip(";").strip()


def instrument(query: str, body: list[A.Expr]) -> tuple[list[A.Expr], list[Expression]]:
    """The body with each value-giving expression `t` rewritten to `cupcake_query_value_i = t`."""
    out: list[A.Expr] = []
    exprs: list[Expression] = []
    single = len(body) == 1  # opa eval reports a lone expression's value even when it is false
    for i, e in enumerate(body):
        text = _expression_text(query, e, body[i + 1] if i + 1 < len(body) else None)
        boolean = _ASSIGNING if single else _BOOLEAN_CALLS
        gives_value = not e.negated and (isinstance(e.terms, A.Term)
                                         or (isinstance(e.terms, list) and e.operator not in boolean))
        if not gives_value:
            out.append(e)
            exprs.append(Expression(text, e.location.row, e.location.col, None))
            continue
        var = _VALUE_VAR.format(i)
        if isinstance(e.terms, A.Term):
            value = e.terms
        else:
            assert isinstance(e.terms, list)  # gives_value: a term or a call
            op = e.terms[0].value
            assert isinstance(op, A.Ref)  # gives_value: a call with a named operator
            value = A.Term(A.Call(op, list(e.terms[1:])), e.location)
        rewritten = copy.copy(e)
        rewritten.terms = [A.Term(A.ref_of("eq"), e.location), A.var_term(var), value]
        out.append(rewritten)
        exprs.append(Expression(text, e.location.row, e.location.col, var))
    return out, exprs


def _read_doc(path: Path, what: str) -> Any:
    from cupcake_py.authoring.testing.data import DataError, _parse

    if path.suffix not in (".json", ".yaml", ".yml"):
        raise QueryError(f"{what} {path}: expected a .json, .yaml or .yml file")
    try:
        return _parse(path)
    except OSError as e:
        raise QueryError(f"{what} {path}: {e.strerror or e}") from None
    except DataError as e:
        raise QueryError(str(e)) from None


def load_modules(paths: list[Path]) -> list[A.Module]:
    from cupcake_py.rego import find_rego_files, parse_module, read_source

    missing = [p for p in paths if not p.exists()]
    if missing:
        raise QueryError(f"no such file or directory: {missing[0]}")
    rego = [p for p in paths if p.is_dir() or p.suffix == ".rego"]
    return [parse_module(read_source(f), str(f)) for f in find_rego_files(rego)] if rego else []


def run_query(query: str, data_paths: list[Path], input_path: Path | None, *, stdin_input: bytes | None = None,
              strict: bool = False, deadline: float = 5.0) -> QueryResult:
    from cupcake_py.authoring.testing.data import DataError, load_data
    from cupcake_py.core import values
    from cupcake_py.host import UNDEFINED, HostOptions, PolicyModule
    from cupcake_py.host.errors import HostError
    from cupcake_py.plan import compile_query
    from cupcake_py.plan.planner import query_vars
    from cupcake_py.rego import parse_query
    from cupcake_py.wasm import compile_policy

    body = parse_query(query)
    variables = query_vars(body)
    planned, exprs = instrument(query, body)
    modules = load_modules(data_paths)
    try:
        data, _files = load_data(data_paths)
    except DataError as e:
        raise QueryError(str(e)) from None
    doc: Any = UNDEFINED
    if input_path is not None:
        doc = _read_doc(input_path, "input")
    elif stdin_input is not None:
        try:
            doc = values.parse_json(stdin_input)
        except values.ValueParseError as e:
            raise QueryError(f"input on stdin is not valid JSON: {e}") from None
    wasm = compile_policy(compile_query(modules, planned, entrypoint="query"))
    try:
        instance = PolicyModule(wasm, HostOptions(strict=strict, deadline=deadline, cache_dir=None)).instantiate(data)
        rows = instance.eval("query", doc)
    except HostError as e:
        raise QueryError(f"evaluation failed: {e}") from None
    result = QueryResult(exprs, variables)
    for row in rows:
        values_of = [row.get(e.value_var) if e.value_var else True for e in exprs]
        if len(exprs) > 1 and any(v is False for v, e in zip(values_of, exprs, strict=True) if e.value_var):
            continue  # in a query of several expressions, one that is false does not hold (no result)
        result.rows.append({"expressions": values_of, "bindings": {v: row[v] for v in variables if v in row}})
    return result


def json_text(value: Any, indent: bool = False) -> str:
    """orjson's text of a result value; the standard library's (same layout) for values nested
    deeper than orjson's 254 levels."""
    import orjson

    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:
        import json

        return json.dumps(value, ensure_ascii=False, indent=2 if indent else None,
                          separators=(",", ": ") if indent else (",", ":"))


def pretty(result: QueryResult) -> str:
    """opa eval's pretty output: the value of a single expression with no variables, else a table of
    the bindings (and the values of the value-giving expressions); `undefined` when nothing holds."""
    if not result.rows:
        return "undefined\n"
    if not result.variables and len(result.expressions) == 1:
        return "\n".join(json_text(r["expressions"][0], indent=True) for r in result.rows) + "\n"
    cols = list(result.variables) + [e.text for e in result.expressions if e.value_var]
    table = []
    for r in result.rows:
        vals = [r["bindings"].get(v) for v in result.variables]
        vals += [r["expressions"][i] for i, e in enumerate(result.expressions) if e.value_var]
        table.append([json_text(v) for v in vals])
    if not cols:
        return "true\n"
    widths = [max(len(c), *(len(t[i]) for t in table)) for i, c in enumerate(cols)]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def fmt(cells: list[str]) -> str:
        return "|" + "|".join(f" {c:<{w}} " for c, w in zip(cells, widths, strict=True)) + "|"

    return "\n".join([line, fmt(cols), line, *(fmt(t) for t in table), line]) + "\n"
