"""json.match_schema / json.verify_schema as OPA's JSON-schema library answers (issue 32):
no crash on uniqueItems/minItems, its messages, the root field `(Root)`, the closest
sub-schema's errors under anyOf/oneOf, and verify_schema's result for a wrong schema type."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.host_builtins.test_encoding_json import call


def _errors(doc: Any, schema: Any) -> list[tuple[str, str, str]]:
    ok, errors = call("json.match_schema", doc, schema)
    assert ok is (not errors)
    return [(e["type"], e["field"], e["desc"]) for e in errors]


def test_array_keywords_report_instead_of_crashing() -> None:
    schema = {"properties": {"xs": {"type": "array", "uniqueItems": True, "minItems": 3, "maxItems": 1}}}
    assert _errors({"xs": [1, 1]}, schema) == [
        ("array_min_items", "xs", "Array must have at least 3 items"),
        ("array_max_items", "xs", "Array must have at most 1 items"),
        ("unique", "xs", "array items[0,1] must be unique"),
    ]
    assert _errors("[1, 1]", {"uniqueItems": True}) == [("unique", "(Root)", "array items[0,1] must be unique")]
    assert _errors({"xs": [{"a": 1}, {"a": 1}]}, {"properties": {"xs": {"uniqueItems": True}}}) == [
        ("unique", "xs", "array items[0,1] must be unique")]


def test_error_text_is_field_then_description() -> None:
    ok, errors = call("json.match_schema", {"a": {"b": "x"}},
                      {"properties": {"a": {"properties": {"b": {"type": "integer"}}}}})
    assert errors == [{"error": "a.b: Invalid type. Expected: integer, given: string", "type": "invalid_type",
                       "field": "a.b", "desc": "Invalid type. Expected: integer, given: string"}]


def test_any_of_reports_the_closest_subschema() -> None:
    schema = {"anyOf": [{"type": "string"},
                        {"type": "object", "required": ["name", "kind"], "properties": {"kind": {"enum": ["a"]}}}]}
    assert _errors({"kind": "b"}, schema) == [
        ("number_any_of", "(Root)", "Must validate at least one schema (anyOf)"),
        ("required", "(Root)", "name is required"),
        ("enum", "kind", 'kind must be one of the following: "a"'),
    ]
    assert _errors('"x"', schema) == []  # a string document is JSON text


def test_one_of_and_all_of() -> None:
    assert _errors("5", {"oneOf": [{"type": "integer"}, {"minimum": 1}]}) == [
        ("number_one_of", "(Root)", "Must validate one and only one schema (oneOf)")]
    assert _errors({"n": 5}, {"properties": {"n": {"allOf": [{"maximum": 3}, {"type": "integer"}]}}}) == [
        ("number_lte", "n", "Must be less than or equal to 3"),
        ("number_all_of", "n", "Must validate all the schemas (allOf)"),
    ]


def test_object_string_number_keywords() -> None:
    schema = {"type": "object", "additionalProperties": False, "required": ["a"], "minProperties": 3,
              "properties": {"a": {"type": "string", "minLength": 3, "pattern": "^z"},
                             "n": {"multipleOf": 2, "exclusiveMinimum": 10}}}
    assert _errors({"a": "xy", "n": 7, "q": True}, schema) == [
        ("additional_property_not_allowed", "(Root)", "Additional property q is not allowed"),
        ("string_gte", "a", "String length must be greater than or equal to 3"),
        ("pattern", "a", "Does not match pattern '^z'"),
        ("multiple_of", "n", "Must be a multiple of 2"),
        ("number_gt", "n", "Must be greater than 10"),
    ]


def test_refs_resolve_inside_the_schema_and_fail_closed_outside() -> None:
    schema = {"definitions": {"port": {"type": "integer", "maximum": 65535}},
              "properties": {"p": {"$ref": "#/definitions/port"}}}
    assert _errors({"p": 70000}, schema) == [("number_lte", "p", "Must be less than or equal to 65535")]
    from tests.host_builtins.test_encoding_json import fails
    fails("json.match_schema", {"p": 1}, {"properties": {"p": {"$ref": "http://example.invalid/s.json"}}},
          match="json.match_schema: jsonschema")


@pytest.mark.parametrize("schema", [[1], 1, True, None])
def test_verify_schema_of_a_wrong_type_is_a_result(schema: Any) -> None:
    assert call("json.verify_schema", schema) == [False, "jsonschema: wrong type, expected string or object"]
    assert call("json.verify_schema", "{not json") == [False, "jsonschema: invalid JSON string"]


@pytest.mark.parametrize("document", [[1], 1, True, None])
def test_match_schema_documents_are_strings_or_objects(document: Any) -> None:
    from tests.host_builtins.test_encoding_json import fails
    fails("json.match_schema", document, {"type": "array"}, match="wrong type, expected string or object")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=6), st.integers(0, 4), st.booleans())
def test_arrays_never_crash_and_agree_with_counting(xs: list[int], n: int, unique: bool) -> None:
    errors = _errors({"xs": xs}, {"properties": {"xs": {"type": "array", "minItems": n, "uniqueItems": unique}}})
    kinds = [k for k, _, _ in errors]
    assert ("array_min_items" in kinds) == (len(xs) < n)
    assert ("unique" in kinds) == (unique and len(set(xs)) < len(xs))


# Formats, regexes and numbers as OPA's library has them (hunt for issue 32's classes).
@pytest.mark.parametrize(("fmt", "bad", "good"), [
    ("date-time", "yesterday", "2020-01-02T03:04:05.5+02:00"),
    ("date-time", "2020-02-30T00:00:00Z", "12:00:00"),
    ("date", "2020-13-01", "2020-12-01"),
    ("time", "noon", "12:00:00Z"),
    ("uri", "no-scheme", "https://example.com/a?b#c"),
    ("uri", "http://bad host/", "mailto:a@example.com"),
    ("uri-reference", "a\\b", "../a/b"),
    ("uri-template", "http://x/{a", "http://x/{a}/b"),
    ("hostname", "-bad-", "a.example.com"),
    ("uuid", "1234", "123E4567-e89b-12d3-a456-426614174000"),
    ("email", "a@", "Ann <a@example.com>"),
    ("ipv4", "1.2.3", "1.2.3.4"),
    ("ipv6", "fe80::1%eth0", "::1"),
    ("json-pointer", "a/b", "/a/~1b"),
    ("relative-json-pointer", "/a", "0#"),
    ("regex", "(", "\\p{L}+"),
])
def test_formats_are_checked_as_opas_library_checks_them(fmt: str, bad: str, good: str) -> None:
    schema = {"properties": {"v": {"format": fmt}}}
    assert _errors({"v": bad}, schema) == [("format", "v", f"Does not match format '{fmt}'")]
    assert _errors({"v": good}, schema) == []
    assert _errors({"v": 5}, schema) == []  # not a string: every format holds
    assert _errors({"v": "anything"}, {"properties": {"v": {"format": "no-such-format"}}}) == []


def test_patterns_are_go_regexps() -> None:
    schema = {"properties": {"name": {"pattern": "^\\p{L}+\\z"}}, "patternProperties": {"^\\p{Lu}": {"type": "string"}}}
    assert call("json.verify_schema", schema) == [True, None]
    assert _errors({"name": "Zoë"}, schema) == []
    assert _errors({"name": "Zoë1", "X": 1}, schema) == [
        ("invalid_type", "X", "Invalid type. Expected: string, given: integer"),
        ("pattern", "name", "Does not match pattern '^\\p{L}+\\z'"),
    ]


def test_numbers_in_messages_print_as_go_prints_them() -> None:
    schema = {"properties": {"n": {"maximum": 1000000, "minimum": 2147483647}}}
    assert _errors({"n": 2000000}, schema) == [
        ("number_lte", "n", "Must be less than or equal to 1e+06"),
        ("number_gte", "n", "Must be greater than or equal to 2.147483647e+09"),
    ]
    assert _errors({"n": 1}, {"properties": {"n": {"enum": [12345678901234567890, 1e-7, 1e21, "<a&b>"]}}}) == [
        ("enum", "n", "n must be one of the following: 12345678901234567000, 1e-7, 1e+21, \"\\u003ca\\u0026b\\u003e\"")]
    # numbers compare as float64, as the library's marshalWithoutNumber leaves them
    assert _errors({"xs": [9007199254740993, 9007199254740992]}, {"properties": {"xs": {"uniqueItems": True}}}) == [
        ("unique", "xs", "array items[0,1] must be unique")]


def test_a_local_ref_that_does_not_resolve_makes_the_schema_invalid_walked_or_not() -> None:
    from tests.host_builtins.test_encoding_json import fails
    schema = {"properties": {"a": {"$ref": "#/definitions/missing"}}, "enum": [{"$ref": "#/nowhere"}, {}]}
    ok, msg = call("json.verify_schema", schema)
    assert ok is False and "#/definitions/missing" in msg
    fails("json.match_schema", {"b": 1}, schema, match="json.match_schema: jsonschema")
    assert call("json.verify_schema", {"definitions": {"n": {}}, "properties": {"a": {"$ref": "#/definitions/n"}},
                                       "const": {"$ref": "#/data/only"}}) == [True, None]


def test_numbers_beyond_float64_do_not_crash_the_walk() -> None:
    assert _errors({"a": 10**400}, {"properties": {"a": {"type": "integer", "enum": [1], "maximum": 5}}}) == [
        ("number_lte", "a", "Must be less than or equal to 5"), ("enum", "a", "a must be one of the following: 1")]
