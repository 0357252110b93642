"""hex, base64url, urlquery, yaml, json.marshal_with_options, json.patch, JSON schema."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.host_builtins.calls import call, fails


@pytest.mark.parametrize(
    ("name", "args", "want"),
    [
        ("hex.encode", ("lorem ipsum",), "6c6f72656d20697073756d"),
        ("hex.decode", ("6C6f",), "lo"),
        ("base64url.encode_no_pad", ("??>",), "Pz8-"),
        ("urlquery.encode", ("a=b+1 ~é",), "a%3Db%2B1+~%C3%A9"),
        ("urlquery.decode", ("a%3Db%2B1+x",), "a=b+1 x"),
        (
            "urlquery.encode_object",
            ({"b": ["2", "1"], "a": frozenset({"y", "x"}), "c": "="},),
            "a=x&a=y&b=2&b=1&c=%3D",
        ),
        ("urlquery.decode_object", ("a=1&b&a=2",), {"a": ["1", "2"], "b": [""]}),
        ("urlquery.decode_object", ("",), {}),
        (
            "yaml.unmarshal",
            ("a: [1, 2.5]\nb: 2020-01-01\nc: yes\n1: x",),
            {"a": [1, Decimal("2.5")], "b": "2020-01-01", "c": True, "1": "x"},
        ),
        ("yaml.is_valid", ("a: {",), False),
        ("yaml.is_valid", (1,), False),
        ("yaml.marshal", ({"b": [1, frozenset({"z"})], "a": Decimal("1.5")},), "a: 1.5\nb:\n- 1\n- - z\n"),
        ("json.marshal_with_options", ([1, {"a": "<"}], {}), '[1,{"a":"\\u003c"}]'),
        ("json.marshal_with_options", ([1, []], {"pretty": True}), "[\n\t1,\n\t[]\n]"),
        ("json.marshal_with_options", ({"a": 1}, {"prefix": "> ", "indent": " "}), '> {\n>  "a": 1\n> }'),
        ("json.marshal_with_options", ([1], {"pretty": False, "indent": "x"}), "[1]"),
    ],
)
def test_table(name: str, args: tuple[object, ...], want: object) -> None:
    assert call(name, *args) == want


def test_errors() -> None:
    fails("hex.decode", "fghijkl", match="invalid byte: U+0067 'g'")
    fails("hex.decode", "abc", match="odd length hex string")
    fails("urlquery.decode", "%zz", match='invalid URL escape "%zz"')
    fails("urlquery.decode_object", "a=1;b=2", match="invalid semicolon separator")
    fails("yaml.unmarshal", "[1,2,3", match="yaml.unmarshal: error converting YAML to JSON: yaml: line")
    fails("json.marshal_with_options", [], {"bogus": 1}, match='unknown key "bogus"')
    fails("json.marshal_with_options", [], {"pretty": "yes"}, match='"pretty" option must be a boolean')


@pytest.mark.parametrize(
    ("doc", "patch", "want"),
    [
        ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"foo": "bar", "baz": "qux"}),
        ({"foo": ["a", "c"]}, [{"op": "add", "path": "/foo/1", "value": "b"}], {"foo": ["a", "b", "c"]}),
        ({"foo": ["a"]}, [{"op": "add", "path": "/foo/-", "value": "b"}], {"foo": ["a", "b"]}),
        ({"a": {"b": 1}}, [{"op": "move", "from": "/a/b", "path": "/c"}], {"a": {}, "c": 1}),
        ({"a": [1]}, [{"op": "copy", "from": "/a", "path": "/b"}], {"a": [1], "b": [1]}),
        (
            {"a/b": 1, "m~n": 2},
            [{"op": "remove", "path": "/a~1b"}, {"op": "replace", "path": "/m~0n", "value": 3}],
            {"m~n": 3},
        ),
        ({"a": 1}, [{"op": "test", "path": "/a", "value": 1}], {"a": 1}),
        ({"s": frozenset({"a", "b"})}, [{"op": "remove", "path": "s/a"}], {"s": frozenset({"b"})}),
        ({"s": frozenset({"a"})}, [{"op": "add", "path": "s/d", "value": "d"}], {"s": frozenset({"a", "d"})}),
        (frozenset({(1,)}), [{"op": "add", "path": [[1], 1], "value": 2}], frozenset({(1, 2)})),
        ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
    ],
)
def test_json_patch(doc: object, patch: list[object], want: object) -> None:
    assert call("json.patch", doc, patch) == want


@pytest.mark.parametrize(
    ("doc", "patch", "msg"),
    [
        ({"q": {}}, [{"op": "add", "path": "/a/b", "value": 1}], "does not exist"),
        ([1, 2], [{"op": "add", "path": "1.2", "value": 0}], "invalid array index"),
        ([1], [{"op": "remove", "path": "/5"}], "out of range"),
        ({"a": 1}, [{"op": "test", "path": "/a", "value": 2}], "test operation failed"),
        ({"s": frozenset({"a"})}, [{"op": "add", "path": "s/d", "value": "e"}], "must match"),
        ({}, [{"op": "nope", "path": "/a"}], "unknown op"),
        ({}, [{"path": "/a"}], 'missing "op"'),
    ],
)
def test_json_patch_errors(doc: object, patch: list[object], msg: str) -> None:
    fails("json.patch", doc, patch, match=msg)


def test_json_schema() -> None:
    assert call("json.verify_schema", '{"type": "boolean"}') == [True, None]
    ok, err = call("json.verify_schema", {"type": "unknown_type"})
    assert ok is False and "has a primitive type that is NOT VALID -- given: /unknown_type/" in err
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id", "name"]}
    assert call("json.match_schema", {"id": 5, "name": "x"}, schema) == [True, []]
    ok, errors = call("json.match_schema", '{"id": "5"}', schema)
    assert ok is False
    assert {e["type"] for e in errors} == {"invalid_type", "required"}
    by_type = {e["type"]: e for e in errors}
    assert by_type["invalid_type"]["field"] == "id"
    assert by_type["invalid_type"]["desc"] == "Invalid type. Expected: integer, given: string"
    assert by_type["required"]["error"] == "(Root): name is required"
    fails("json.match_schema", {}, {"type": 3}, match="json.match_schema: jsonschema")
