"""json.verify_schema and json.match_schema (jsonschema library, gojsonschema-style results)."""

from __future__ import annotations

import json
from decimal import Decimal
from functools import lru_cache
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, type_err
from cupcake_py.host.builtins._values import FrozenObject, sorted_values, to_json_text

_GO_TYPES = "[array boolean integer number null object string]"


def _plain(v: Any) -> Any:
    """Rego value → JSON data for the validator (integral numbers as int, others float)."""
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, frozenset):
        return [_plain(x) for x in sorted_values(v)]
    if isinstance(v, dict | FrozenObject):
        return {(k if isinstance(k, str) else to_json_text(k)): _plain(x) for k, x in v.items()}
    return v


def _load(fname: str, pos: int, v: Any) -> Any:
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError as exc:
            raise BuiltinError(f"{fname}: operand {pos} must be valid JSON: {exc}") from None
    if isinstance(v, dict | FrozenObject | bool):
        return _plain(v)
    raise type_err(fname, pos, v, "string", "object", "boolean")


def _schema_error(schema: Any) -> str | None:
    """None when ``schema`` is a valid JSON schema, else a gojsonschema-like message."""
    from jsonschema import exceptions, validators

    cls = validators.validator_for(schema, default=validators.Draft7Validator)
    try:
        cls.check_schema(schema)
    except exceptions.SchemaError as exc:
        if exc.validator in ("anyOf", "enum") and "type" in list(exc.path):
            return (
                f"jsonschema: has a primitive type that is NOT VALID -- given: /{exc.instance}/ "
                f"Expected valid values are:{_GO_TYPES}"
            )
        return f"jsonschema: {exc.message}"
    return None


@lru_cache(maxsize=128)
def _compiled(schema_text: str) -> Any:
    from jsonschema import validators

    schema = json.loads(schema_text)
    cls = validators.validator_for(schema, default=validators.Draft7Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@builtin("json.verify_schema")
def verify_schema(ctx: BuiltinContext, schema: Any) -> list[Any]:
    err = _schema_error(_load("json.verify_schema", 1, schema))
    return [err is None, err]


def _go_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer()):
        return "integer"
    if isinstance(v, float):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names.get(type(v), "unknown")


def _describe(e: Any) -> tuple[str, str, str]:
    """(gojsonschema type, field, description) for a jsonschema ValidationError."""
    path = ".".join(str(p) for p in e.absolute_path) or "(root)"
    v, val = e.validator, e.validator_value
    if v == "type":
        want = ",".join(val) if isinstance(val, list) else val
        return "invalid_type", path, f"Invalid type. Expected: {want}, given: {_go_type(e.instance)}"
    if v == "required":
        missing = e.message.split("'")[1] if "'" in e.message else e.message
        return "required", path, f"{missing} is required"
    table: dict[str, tuple[str, str]] = {
        "enum": ("enum", "{f} must be one of the following: " + ", ".join(json.dumps(x) for x in val or [])),
        "const": ("const", "{f} does not match: " + json.dumps(val)),
        "minimum": ("number_gte", f"Must be greater than or equal to {val}"),
        "maximum": ("number_lte", f"Must be less than or equal to {val}"),
        "exclusiveMinimum": ("number_gt", f"Must be greater than {val}"),
        "exclusiveMaximum": ("number_lt", f"Must be less than {val}"),
        "minLength": ("string_gte", f"String length must be greater than or equal to {val}"),
        "maxLength": ("string_lte", f"String length must be less than or equal to {val}"),
        "pattern": ("pattern", f"Does not match pattern '{val}'"),
        "format": ("format", f"Does not match format '{val}'"),
        "minItems": ("array_min_items", f"Array must have at least {val} items"),
        "maxItems": ("array_max_items", f"Array must have at most {val} items"),
        "uniqueItems": ("unique", "array items must be unique"),
        "minProperties": ("array_min_properties", f"Must have at least {val} properties"),
        "maxProperties": ("array_max_properties", f"Must have at most {val} properties"),
        "multipleOf": ("multiple_of", f"Must be a multiple of {val}"),
        "anyOf": ("number_any_of", "Must validate at least one schema (anyOf)"),
        "oneOf": ("number_one_of", "Must validate one and only one schema (oneOf)"),
        "allOf": ("number_all_of", "Must validate all the schemas (allOf)"),
        "not": ("number_not", "Must not validate the schema (not)"),
    }
    if v == "additionalProperties":
        extra = e.message.split("'")[1] if "'" in e.message else "property"
        return "additional_property_not_allowed", path, f"Additional property {extra} is not allowed"
    kind, desc = table.get(v, (str(v), e.message))
    return kind, path, desc.replace("{f}", path)


@builtin("json.match_schema")
def match_schema(ctx: BuiltinContext, document: Any, schema: Any) -> list[Any]:
    doc = _load("json.match_schema", 1, document) if isinstance(document, str) else _plain(document)
    sch = _load("json.match_schema", 2, schema)
    err = _schema_error(sch)
    if err is not None:
        raise BuiltinError(f"json.match_schema: {err}")
    validator = _compiled(json.dumps(sch, sort_keys=True))
    errors = []
    for e in sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path]):
        kind, field, desc = _describe(e)
        errors.append({"error": f"{field}: {desc}", "type": kind, "field": field, "desc": desc})
    return [not errors, errors]
