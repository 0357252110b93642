"""json.verify_schema and json.match_schema: the schema checked by the jsonschema library,
documents walked as OPA's JSON-schema library does (`_schema_walk`), results in OPA's shape."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, _schema_formats, builtin
from cupcake_py.host.builtins._errors import BuiltinError, OperandError, type_err
from cupcake_py.host.builtins._schema_walk import SchemaWalkError, match, unresolved_ref
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


_MAX_DIGITS = 4000  # an integer of more digits stays an infinite float (no huge ints from a text)


def _json_number(text: str) -> int | float:
    """A JSON number of a document or schema given as text: a float where float64 holds it, an
    exact int where it is integral beyond float64 (`1e400`; Go's library reads numbers exactly)."""
    f = float(text)
    if f in (float("inf"), float("-inf")) or f == 0:
        d = Decimal(text)
        if d.adjusted() < _MAX_DIGITS and d == d.to_integral_value():
            return int(d)
    return f


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")  # NaN/Infinity: Go's json.Valid refuses them


def _load(fname: str, pos: int, v: Any) -> Any:
    if isinstance(v, str):
        try:
            return json.loads(v, parse_float=_json_number, parse_int=int, parse_constant=_no_constant)
        except ValueError as exc:
            raise OperandError(f"{fname}: operand {pos} must be valid JSON: {exc}") from None
    if isinstance(v, dict | FrozenObject | bool):
        return _plain(v)
    raise type_err(fname, pos, v, "string", "object", "boolean")


def _schema_error(schema: Any) -> str | None:
    """None when ``schema`` is a valid JSON schema, else a gojsonschema-like message."""
    from jsonschema import exceptions, validators

    if not isinstance(schema, dict | bool):  # a JSON text of a number, string, array or null
        shown = "None" if schema is None else repr(schema)
        return f"jsonschema: {shown} is not of type 'object', 'boolean'"
    cls = validators.validator_for(schema, default=validators.Draft7Validator)
    meta = validators.validator_for(cls.META_SCHEMA, default=cls)  # as check_schema, Go's regexes
    try:
        for error in meta(cls.META_SCHEMA, format_checker=_regex_checker()).iter_errors(schema):
            raise exceptions.SchemaError.create_from(error)
    except exceptions.SchemaError as exc:
        if exc.validator in ("anyOf", "enum") and "type" in list(exc.path):
            return (
                f"jsonschema: has a primitive type that is NOT VALID -- given: /{exc.instance}/ "
                f"Expected valid values are:{_GO_TYPES}"
            )
        return f"jsonschema: {exc.message}"
    bad_ref = unresolved_ref(schema)
    return None if bad_ref is None else f"jsonschema: {bad_ref}"


def _regex_checker() -> Any:
    """The schema's own `format: regex` fields (`pattern`, `patternProperties`) checked as Go
    regexps (RE2: `\\p{L}` is valid, Python-only syntax is not), as OPA's library compiles them."""
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    checker.checks("regex")(lambda v: not isinstance(v, str) or _schema_formats.conforms(v, "regex"))
    return checker


@builtin("json.verify_schema")
def verify_schema(ctx: BuiltinContext, schema: Any) -> list[Any]:
    if not isinstance(schema, str | dict | FrozenObject):  # OPA: a result, not an error
        return [False, "jsonschema: wrong type, expected string or object"]
    try:
        err = _schema_error(_load("json.verify_schema", 1, schema))
    except BuiltinError:  # not valid JSON text: OPA reports it in the result
        return [False, "jsonschema: invalid JSON string"]
    return [err is None, err]


@builtin("json.match_schema")
def match_schema(ctx: BuiltinContext, document: Any, schema: Any) -> list[Any]:
    if not isinstance(document, str | dict | FrozenObject):  # OPA loads documents as schemas are loaded
        raise BuiltinError("json.match_schema: wrong type, expected string or object")
    doc = _load("json.match_schema", 1, document)
    sch = _load("json.match_schema", 2, schema)
    err = _schema_error(sch)
    if err is not None:
        raise BuiltinError(f"json.match_schema: {err}")
    try:
        errors = match(sch, doc, _schema_formats.conforms)
    except SchemaWalkError as exc:
        raise BuiltinError(f"json.match_schema: jsonschema: {exc}") from None
    return [not errors, errors]
