"""Aggregates, membership, sets, arrays, objects, types, graph.reachable and walk."""

from __future__ import annotations

from decimal import Decimal

import pytest

from .harness import Runtime
from .tables import UNDEFINED, Row, check, row_id

ROWS: list[Row] = [
    ("count", ('"åäö"',), 3),
    ("count", ('{"a": 1}',), 1),
    ("count", ("{1, 2}",), 2),
    ("count", ("1",), UNDEFINED),
    ("sum", ("[]",), 0),
    ("sum", ("[1, 2.5]",), Decimal("3.5")),
    ("sum", ('[1, "a"]',), UNDEFINED),
    ("product", ("{2, 3}",), 6),
    ("max", ('[1, "a", null]',), "a"),
    ("max", ("[]",), UNDEFINED),
    ("min", ("{[1], 2}",), 2),
    ("sort", ('[3, "a", null, [1], 1.5]',), [None, Decimal("1.5"), 3, "a", [1]]),
    ("sort", ('{"b", "a"}',), ["a", "b"]),
    ("sort", ('"ab"',), UNDEFINED),
    ("all", ("[true, true]",), True),
    ("all", ("[]",), True),
    ("all", ("[true, 1]",), False),
    ("any", ("{false, true}",), True),
    ("any", ("[]",), False),
    ("any", ("1",), UNDEFINED),
    ("internal.member_2", ("1", "[2, 1.0]"), True),
    ("internal.member_2", ("1", '{"a": 1}'), True),
    ("internal.member_2", ('"a"', '{"a": 1}'), False),
    ("internal.member_2", ("1", '"1"'), False),
    ("internal.member_3", ("0", '"x"', '["x"]'), True),
    ("internal.member_3", ('"a"', "1", '{"a": 1}'), True),
    ("internal.member_3", ("1", "1", "{1}"), True),
    ("internal.member_3", ("5", '"x"', '["x"]'), False),
    ("and", ("{1, 2}", "{2, 3}"), [2]),
    ("or", ("{1}", "{2}"), [1, 2]),
    ("and", ("[1]", "{1}"), UNDEFINED),
    ("set_diff", ("{1, 2}", "{2}"), [1]),
    ("intersection", ("{{1, 2}, {2, 3}}",), [2]),
    ("intersection", ("set()",), []),
    ("union", ("{{1}, {2}}",), [1, 2]),
    ("union", ("{[1]}",), UNDEFINED),
    ("array.concat", ("[1]", "[2, 3]"), [1, 2, 3]),
    ("array.concat", ("[1]", "{2}"), UNDEFINED),
    ("array.reverse", ("[1, 2, 3]",), [3, 2, 1]),
    ("array.slice", ("[1, 2, 3, 4]", "1", "3"), [2, 3]),
    ("array.slice", ("[1, 2, 3]", "-5", "99"), [1, 2, 3]),
    ("array.slice", ("[1, 2, 3]", "2", "1"), []),
    ("array.slice", ("[1, 2, 3]", "0.5", "1"), UNDEFINED),
    ("object.filter", ('{"a": 1, "b": 2}', '["a", "x"]'), {"a": 1}),
    ("object.remove", ('{"a": 1, "b": 2}', '{"a": 0}'), {"b": 2}),
    ("object.remove", ('{"a": 1}', '"a"'), UNDEFINED),
    ("object.get", ('{"a": 1}', '"a"', "0"), 1),
    ("object.get", ('{"a": 1}', '"b"', "0"), 0),
    ("object.get", ('{"a": {"b": {1, 2}}}', '["a", "b", 2]', "0"), 2),
    ("object.get", ('{"a": [1]}', '["a", 5]', '"d"'), "d"),
    ("object.get", ('{"a": 1}', "[]", "0"), {"a": 1}),
    ("object.get", ("[1]", "0", "0"), UNDEFINED),
    ("object.keys", ('{"b": 1, "a": 2}',), ["a", "b"]),
    ("object.union", ('{"a": {"b": 1, "c": 2}}', '{"a": {"b": 3}}'), {"a": {"b": 3, "c": 2}}),
    ("object.union", ('{"a": {"b": 1}}', '{"a": 5}'), {"a": 5}),
    ("object.union_n", ('[{"a": 1}, {"b": 2}, {"a": 3}]',), {"a": 3, "b": 2}),
    ("object.union_n", ("[]",), {}),
    ("object.union_n", ('[{"a": 1}, 2]',), UNDEFINED),
    ("is_number", ("1.5",), True),
    ("is_string", ("1",), False),
    ("is_set", ("set()",), True),
    ("is_object", ("{}",), True),
    ("is_array", ("[]",), True),
    ("is_boolean", ("false",), True),
    ("is_null", ("null",), True),
    ("type_name", ("set()",), "set"),
    ("type_name", ("{}",), "object"),
    ("type_name", ("[]",), "array"),
    ("graph.reachable", ('{"a": ["b"], "b": ["c"], "c": null}', '["a"]'), ["a", "b", "c"]),
    ("graph.reachable", ('{"a": ["b"]}', '{"z"}'), []),
    ("graph.reachable", ('{"a": []}', '"a"'), UNDEFINED),
    ("walk", ("1",), [[[], 1]]),
    ("walk", ('{"b": [true], "a": 1}',),
     [[[], {"a": 1, "b": [True]}], [["a"], 1], [["b"], [True]], [["b", 0], True]]),
]


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_collection_builtin(rt: Runtime, row: Row) -> None:
    check(rt, row)
