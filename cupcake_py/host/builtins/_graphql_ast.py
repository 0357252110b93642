"""GraphQL documents in the JSON shape OPA's graphql.* builtins return, and back to text.

OPA marshals the parse trees of the Go library gqlparser to JSON and prunes them: no
``Position``, no nulls, no empty arrays/objects; empty strings and ``false`` stay. This
module produces that shape from graphql-core's parse tree (``query_shape``,
``schema_shape``) and prints a shape back as GraphQL text (``print_query``,
``print_schema``) so AST objects given to the builtins can be validated.

Field names follow gqlparser's Go structs: a query document is
``{"Operations": [...], "Fragments": [...]}``; a schema document is
``{"Schema", "SchemaExtension", "Directives", "Definitions", "Extensions"}``. Values are
``{"Raw", "Kind", "Children", "ExpectedTypeHasDefault"}`` with gqlparser's ValueKind
numbers (below).
"""

from __future__ import annotations

import json
from typing import Any

from graphql.language import ast as g

Shape = dict[str, Any]

# gqlparser's ValueKind enumeration.
VARIABLE, INT, FLOAT, STRING, BLOCK, BOOLEAN, NULL, ENUM, LIST, OBJECT = range(10)

_DEF_KIND: dict[type, str] = {
    g.ScalarTypeDefinitionNode: "SCALAR", g.ScalarTypeExtensionNode: "SCALAR",
    g.ObjectTypeDefinitionNode: "OBJECT", g.ObjectTypeExtensionNode: "OBJECT",
    g.InterfaceTypeDefinitionNode: "INTERFACE", g.InterfaceTypeExtensionNode: "INTERFACE",
    g.UnionTypeDefinitionNode: "UNION", g.UnionTypeExtensionNode: "UNION",
    g.EnumTypeDefinitionNode: "ENUM", g.EnumTypeExtensionNode: "ENUM",
    g.InputObjectTypeDefinitionNode: "INPUT_OBJECT", g.InputObjectTypeExtensionNode: "INPUT_OBJECT",
}  # fmt: skip
_KIND_KEYWORD = {
    "SCALAR": "scalar",
    "OBJECT": "type",
    "INTERFACE": "interface",
    "UNION": "union",
    "ENUM": "enum",
    "INPUT_OBJECT": "input",
}


def prune(v: Any) -> Any:
    """OPA's pruning: drop nulls and (after pruning) empty arrays/objects, recursively."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            x = prune(x)
            if x is None or (isinstance(x, dict | list) and not x):
                continue
            out[k] = x
        return out
    if isinstance(v, list):
        items = [prune(x) for x in v]
        return [x for x in items if not (x is None or (isinstance(x, dict | list) and not x))]
    return v


# ------------------------------------------------------------------ graphql-core → shape


def _name(n: g.NameNode | None) -> str:
    return n.value if n is not None else ""


def _desc(n: Any) -> str:
    d = getattr(n, "description", None)
    return d.value if d is not None else ""


def _type(t: g.TypeNode | None) -> Shape | None:
    if t is None:
        return None
    if isinstance(t, g.NonNullTypeNode):
        inner = _type(t.type) or {}
        return {**inner, "NonNull": True}
    if isinstance(t, g.ListTypeNode):
        return {"NamedType": "", "Elem": _type(t.type), "NonNull": False}
    assert isinstance(t, g.NamedTypeNode)
    return {"NamedType": t.name.value, "NonNull": False}


def _value(v: g.ValueNode | None) -> Shape | None:
    if v is None:
        return None
    raw, kind, children = "", NULL, []
    if isinstance(v, g.VariableNode):
        raw, kind = v.name.value, VARIABLE
    elif isinstance(v, g.IntValueNode):
        raw, kind = v.value, INT
    elif isinstance(v, g.FloatValueNode):
        raw, kind = v.value, FLOAT
    elif isinstance(v, g.StringValueNode):
        raw, kind = v.value, BLOCK if v.block else STRING
    elif isinstance(v, g.BooleanValueNode):
        raw, kind = ("true" if v.value else "false"), BOOLEAN
    elif isinstance(v, g.NullValueNode):
        raw, kind = "null", NULL
    elif isinstance(v, g.EnumValueNode):
        raw, kind = v.value, ENUM
    elif isinstance(v, g.ListValueNode):
        kind, children = LIST, [{"Name": "", "Value": _value(x)} for x in v.values]
    elif isinstance(v, g.ObjectValueNode):
        kind, children = OBJECT, [{"Name": f.name.value, "Value": _value(f.value)} for f in v.fields]
    return {"Raw": raw, "Children": children, "Kind": kind, "ExpectedTypeHasDefault": False}


def _args(args: Any) -> list[Shape]:
    return [{"Name": a.name.value, "Value": _value(a.value)} for a in args or ()]


def _directives(ds: Any) -> list[Shape]:
    return [{"Name": d.name.value, "Arguments": _args(d.arguments), "Location": ""} for d in ds or ()]


def _selections(ss: g.SelectionSetNode | None) -> list[Shape]:
    out: list[Shape] = []
    for s in ss.selections if ss is not None else ():
        if isinstance(s, g.FieldNode):
            out.append(
                {
                    "Alias": _name(s.alias) or s.name.value,
                    "Name": s.name.value,
                    "Arguments": _args(s.arguments),
                    "Directives": _directives(s.directives),
                    "SelectionSet": _selections(s.selection_set),
                }
            )
        elif isinstance(s, g.FragmentSpreadNode):
            out.append({"Name": s.name.value, "Directives": _directives(s.directives)})
        else:
            assert isinstance(s, g.InlineFragmentNode)
            out.append(
                {
                    "TypeCondition": s.type_condition.name.value if s.type_condition else "",
                    "Directives": _directives(s.directives),
                    "SelectionSet": _selections(s.selection_set),
                }
            )
    return out


def _var_defs(vs: Any) -> list[Shape]:
    return [
        {
            "Variable": v.variable.name.value,
            "Type": _type(v.type),
            "DefaultValue": _value(v.default_value),
            "Directives": _directives(v.directives),
            "Used": False,
        }
        for v in vs or ()
    ]


def query_shape(doc: g.DocumentNode) -> Shape:
    ops: list[Shape] = []
    frags: list[Shape] = []
    for d in doc.definitions:
        if isinstance(d, g.OperationDefinitionNode):
            ops.append(
                {
                    "Operation": d.operation.value,
                    "Name": _name(d.name),
                    "VariableDefinitions": _var_defs(d.variable_definitions),
                    "Directives": _directives(d.directives),
                    "SelectionSet": _selections(d.selection_set),
                }
            )
        elif isinstance(d, g.FragmentDefinitionNode):
            frags.append(
                {
                    "Name": d.name.value,
                    "VariableDefinition": _var_defs(d.variable_definitions),
                    "TypeCondition": d.type_condition.name.value,
                    "Directives": _directives(d.directives),
                    "SelectionSet": _selections(d.selection_set),
                }
            )
    pruned: dict[str, Any] = prune({"Operations": ops, "Fragments": frags})
    return pruned


def _arg_defs(args: Any) -> list[Shape]:
    return [
        {
            "Description": _desc(a),
            "Name": a.name.value,
            "DefaultValue": _value(a.default_value),
            "Type": _type(a.type),
            "Directives": _directives(a.directives),
        }
        for a in args or ()
    ]


def _field_defs(fields: Any) -> list[Shape]:
    out = []
    for f in fields or ():
        if isinstance(f, g.InputValueDefinitionNode):  # input object field
            out.append(
                {
                    "Description": _desc(f),
                    "Name": f.name.value,
                    "DefaultValue": _value(f.default_value),
                    "Type": _type(f.type),
                    "Directives": _directives(f.directives),
                }
            )
        else:
            out.append(
                {
                    "Description": _desc(f),
                    "Name": f.name.value,
                    "Arguments": _arg_defs(f.arguments),
                    "Type": _type(f.type),
                    "Directives": _directives(f.directives),
                }
            )
    return out


def _definition(d: Any) -> Shape:
    return {
        "Kind": _DEF_KIND[type(d)],
        "Description": _desc(d),
        "Name": d.name.value,
        "Directives": _directives(d.directives),
        "Interfaces": [i.name.value for i in getattr(d, "interfaces", None) or ()],
        "Fields": _field_defs(getattr(d, "fields", None)),
        "Types": [t.name.value for t in getattr(d, "types", None) or ()],
        "EnumValues": [
            {"Description": _desc(e), "Name": e.name.value, "Directives": _directives(e.directives)}
            for e in getattr(d, "values", None) or ()
        ],
        "BuiltIn": False,
    }


def _schema_def(d: g.SchemaDefinitionNode | g.SchemaExtensionNode) -> Shape:
    return {
        "Description": _desc(d),
        "Directives": _directives(d.directives),
        "OperationTypes": [
            {"Operation": o.operation.value, "Type": o.type.name.value} for o in d.operation_types or ()
        ],
    }


def schema_shape(doc: g.DocumentNode) -> Shape:
    out: dict[str, list[Shape]] = {
        "Schema": [],
        "SchemaExtension": [],
        "Directives": [],
        "Definitions": [],
        "Extensions": [],
    }
    for d in doc.definitions:
        if isinstance(d, g.SchemaDefinitionNode):
            out["Schema"].append(_schema_def(d))
        elif isinstance(d, g.SchemaExtensionNode):
            out["SchemaExtension"].append(_schema_def(d))
        elif isinstance(d, g.DirectiveDefinitionNode):
            out["Directives"].append(
                {
                    "Description": _desc(d),
                    "Name": d.name.value,
                    "Arguments": _arg_defs(d.arguments),
                    "IsRepeatable": bool(d.repeatable),
                    "Locations": [loc.value for loc in d.locations],
                }
            )
        elif isinstance(d, g.TypeExtensionNode):
            out["Extensions"].append(_definition(d))
        elif isinstance(d, g.TypeDefinitionNode):
            out["Definitions"].append(_definition(d))
    pruned: dict[str, Any] = prune(out)
    return pruned


# ------------------------------------------------------------------ shape → GraphQL text


def _s(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _l(v: Any) -> list[Any]:
    return list(v) if isinstance(v, list | tuple) else []


def _quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _block(s: str) -> str:
    return '"""' + s.replace('"""', '\\"""') + '"""'


def print_value(v: Any) -> str:
    if not isinstance(v, dict):
        return "null"
    kind, raw = v.get("Kind", NULL), _s(v.get("Raw"))
    children = [c for c in _l(v.get("Children")) if isinstance(c, dict)]
    if kind == VARIABLE:
        return "$" + raw
    if kind == STRING:
        return _quote(raw)
    if kind == BLOCK:
        return _block(raw)
    if kind == LIST:
        return "[" + ", ".join(print_value(c.get("Value")) for c in children) + "]"
    if kind == OBJECT:
        return "{" + ", ".join(f"{_s(c.get('Name'))}: {print_value(c.get('Value'))}" for c in children) + "}"
    return raw or "null"


def print_type(t: Any) -> str:
    if not isinstance(t, dict):
        return ""
    name = _s(t.get("NamedType"))
    text = name if name else "[" + print_type(t.get("Elem")) + "]"
    return text + ("!" if t.get("NonNull") is True else "")


def _p_args(args: Any) -> str:
    items = [f"{_s(a.get('Name'))}: {print_value(a.get('Value'))}" for a in _l(args) if isinstance(a, dict)]
    return "(" + ", ".join(items) + ")" if items else ""


def _p_dirs(ds: Any) -> str:
    return "".join(
        f" @{_s(d.get('Name'))}{_p_args(d.get('Arguments'))}" for d in _l(ds) if isinstance(d, dict)
    )


def _p_selections(ss: Any) -> str:
    parts = []
    for s in _l(ss):
        if not isinstance(s, dict):
            continue
        if "Alias" in s:
            alias, name = _s(s.get("Alias")), _s(s.get("Name"))
            head = (f"{alias}: {name}" if alias and alias != name else name) + _p_args(s.get("Arguments"))
            parts.append(head + _p_dirs(s.get("Directives")) + _p_selections(s.get("SelectionSet")))
        elif "Name" in s:
            parts.append("..." + _s(s.get("Name")) + _p_dirs(s.get("Directives")))
        else:
            cond = _s(s.get("TypeCondition"))
            parts.append(
                "..."
                + (f" on {cond}" if cond else "")
                + _p_dirs(s.get("Directives"))
                + _p_selections(s.get("SelectionSet"))
            )
    return " { " + " ".join(parts) + " }" if parts else ""


def _p_var_defs(vs: Any) -> str:
    return _p_typed_list(vs, variables=True)


def print_query(doc: Shape) -> str:
    out = []
    for op in _l(doc.get("Operations")):
        if isinstance(op, dict):
            out.append(
                f"{_s(op.get('Operation')) or 'query'} {_s(op.get('Name'))}{_p_var_defs(op.get('VariableDefinitions'))}"
                f"{_p_dirs(op.get('Directives'))}{_p_selections(op.get('SelectionSet'))}"
            )
    for fr in _l(doc.get("Fragments")):
        if isinstance(fr, dict):
            out.append(
                f"fragment {_s(fr.get('Name'))}{_p_var_defs(fr.get('VariableDefinition'))} on "
                f"{_s(fr.get('TypeCondition'))}{_p_dirs(fr.get('Directives'))}{_p_selections(fr.get('SelectionSet'))}"
            )
    return "\n".join(out)


def _p_desc(d: dict[str, Any]) -> str:
    desc = _s(d.get("Description"))
    return _quote(desc) + " " if desc else ""


def _p_arg_defs(args: Any) -> str:
    return _p_typed_list(args, variables=False)


def _p_typed_list(items: Any, variables: bool) -> str:
    """`($v: T = default @dir, …)` of variable definitions, or `("desc" name: T = default @dir, …)`
    of argument definitions; empty when there are none."""
    out = []
    for v in _l(items):
        if isinstance(v, dict):
            default = f" = {print_value(v['DefaultValue'])}" if isinstance(v.get("DefaultValue"), dict) else ""
            head = f"${_s(v.get('Variable'))}" if variables else f"{_p_desc(v)}{_s(v.get('Name'))}"
            out.append(f"{head}: {print_type(v.get('Type'))}{default}{_p_dirs(v.get('Directives'))}")
    return "(" + ", ".join(out) + ")" if out else ""


def _p_definition(d: dict[str, Any], extend: bool) -> str:
    kind = _s(d.get("Kind"))
    head = ("extend " if extend else _p_desc(d)) + f"{_KIND_KEYWORD.get(kind, 'type')} {_s(d.get('Name'))}"
    ifaces = [_s(i) for i in _l(d.get("Interfaces"))]
    if ifaces:
        head += " implements " + " & ".join(ifaces)
    head += _p_dirs(d.get("Directives"))
    if kind == "UNION":
        types = [_s(t) for t in _l(d.get("Types"))]
        return head + (" = " + " | ".join(types) if types else "")
    if kind == "ENUM":
        vals = [
            f"{_p_desc(e)}{_s(e.get('Name'))}{_p_dirs(e.get('Directives'))}"
            for e in _l(d.get("EnumValues"))
            if isinstance(e, dict)
        ]
        return head + (" { " + " ".join(vals) + " }" if vals else "")
    fields = []
    for f in _l(d.get("Fields")):
        if isinstance(f, dict):
            default = (
                f" = {print_value(f['DefaultValue'])}" if isinstance(f.get("DefaultValue"), dict) else ""
            )
            fields.append(
                f"{_p_desc(f)}{_s(f.get('Name'))}{_p_arg_defs(f.get('Arguments'))}: "
                f"{print_type(f.get('Type'))}{default}{_p_dirs(f.get('Directives'))}"
            )
    return head + (" { " + " ".join(fields) + " }" if fields else "")


def _p_schema(s: dict[str, Any], extend: bool) -> str:
    ops = [
        f"{_s(o.get('Operation'))}: {_s(o.get('Type'))}"
        for o in _l(s.get("OperationTypes"))
        if isinstance(o, dict)
    ]
    head = ("extend schema" if extend else _p_desc(s) + "schema") + _p_dirs(s.get("Directives"))
    return head + (" { " + " ".join(ops) + " }" if ops else "")


def print_schema(doc: Shape) -> str:
    out = [_p_schema(s, False) for s in _l(doc.get("Schema")) if isinstance(s, dict)]
    out += [_p_schema(s, True) for s in _l(doc.get("SchemaExtension")) if isinstance(s, dict)]
    for d in _l(doc.get("Directives")):
        if isinstance(d, dict):
            rep = " repeatable" if d.get("IsRepeatable") is True else ""
            locs = " | ".join(_s(x) for x in _l(d.get("Locations")))
            out.append(
                f"{_p_desc(d)}directive @{_s(d.get('Name'))}{_p_arg_defs(d.get('Arguments'))}{rep} on {locs}"
            )
    out += [_p_definition(d, False) for d in _l(doc.get("Definitions")) if isinstance(d, dict)]
    out += [_p_definition(d, True) for d in _l(doc.get("Extensions")) if isinstance(d, dict)]
    return "\n".join(out)
