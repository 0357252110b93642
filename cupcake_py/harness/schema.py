"""Validation of one harness event against its `harness/<name>/schemas/event.schema.json` and
the per-tool argument types of its `tool_map.json` (`tool_args`).

The validator interprets exactly the JSON Schema keywords the schemas use (type,
required, properties, enum, const, minLength, additionalProperties, allOf, if/then) and
rejects a schema that uses anything else, so the schema files stay the single source of
truth (tests cross-check them against the `jsonschema` package). Unknown extra fields of
the event are kept; arguments a model adds beyond a tool's known ones pass through.

`path_errors` checks the strings the engine hands to the file system (the event's `cwd`, and
every argument a harness names as a path or working directory, for any tool): one that holds a
NUL character is an input error ("invalid ... event"), never an internal error of os calls.
"""

from __future__ import annotations

from cupcake_py.core.errors import EventError
from cupcake_py.core.jsonio import is_fraction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SUPPORTED = frozenset({"$schema", "title", "description", "type", "required", "properties", "enum",
                        "const", "minLength", "additionalProperties", "allOf", "if", "then"})


def json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, float) or is_fraction(v):
        return "number"
    return type(v).__name__


def _type_ok(v: Any, want: str) -> bool:
    got = json_type(v)
    return got == want or (want == "number" and got == "integer")


def _where(path: str) -> str:
    return path or "the event"


def schema_errors(value: Any, schema: dict[str, Any], path: str = "") -> list[str]:
    """Every violation of `schema` by `value` (empty list = valid)."""
    unknown = set(schema) - _SUPPORTED
    if unknown:
        raise ValueError(f"schema uses unsupported keywords: {sorted(unknown)}")
    errors: list[str] = []
    want = schema.get("type")
    if want is not None and not _type_ok(value, want):
        return [f"{_where(path)} must be {'an' if want[0] in 'aeiou' else 'a'} {want}, not {json_type(value)}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{_where(path)} must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(map(str, schema["enum"]))
        errors.append(f"{_where(path)} is {value!r}; expected one of: {choices}")
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        errors.append(f"{_where(path)} must not be empty")
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                errors.append(f"missing required field `{(path + '.' if path else '') + key}`")
        props: dict[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            sub = f"{path}.{key}" if path else key
            if key in props:
                errors.extend(schema_errors(item, props[key], sub))
            elif extra is False:
                errors.append(f"unknown field `{sub}`")
            elif isinstance(extra, dict):
                errors.extend(schema_errors(item, extra, sub))
    for part in schema.get("allOf", ()):
        errors.extend(schema_errors(value, part, path))
    if "if" in schema and not schema_errors(value, schema["if"], path) and "then" in schema:
        errors.extend(schema_errors(value, schema["then"], path))
    return errors


def args_errors(tool_args: dict[str, Any], tool: str, args: dict[str, Any], prefix: str) -> list[str]:
    """Type errors of a known tool's arguments (unknown tools: none). `tool_args` is a
    tool_map.json `tool_args` table, `prefix` how the event names the arguments (`args`)."""
    spec = tool_args.get(tool)
    if spec is None:
        return []
    errors = [f"missing required argument `{prefix}.{k}` of tool `{tool}`" for k in spec["required"] if k not in args]
    for group in ("required", "optional"):
        for key, want in spec[group].items():
            if key in args and not _type_ok(args[key], want):
                errors.append(f"argument `{prefix}.{key}` of tool `{tool}` must be a {want}, not {json_type(args[key])}")
    return errors


def path_errors(event: dict[str, Any], args: Any, path_args: tuple[str, ...], prefix: str) -> list[str]:
    """A NUL character in the event's `cwd` or in an argument named in `path_args` (a path the
    engine resolves on disk; no file name can hold one). Types are checked elsewhere."""
    errors = []
    cwd = event.get("cwd")
    if isinstance(cwd, str) and "\0" in cwd:
        errors.append("`cwd` contains a NUL character (no path can)")
    if isinstance(args, dict):
        for key in path_args:
            v = args.get(key)
            if isinstance(v, str) and "\0" in v:
                errors.append(f"argument `{prefix}.{key}` contains a NUL character (no path can)")
    return errors


def checked(event: Any, errors: list[str], what: str) -> dict[str, Any]:
    """The event when `errors` is empty; EventError listing (up to five of) them otherwise."""
    if errors:
        raise EventError(f"invalid {what} event: " + "; ".join(errors[:5]) +
                         (f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""))
    valid: dict[str, Any] = event
    return valid
