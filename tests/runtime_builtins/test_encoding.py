"""base64/base64url codecs (Go's encoding/base64 rules), json.marshal/unmarshal/is_valid
(Go's encoding/json output and acceptance), json.filter/json.remove path forms, and
net.cidr_* on IPv4 and IPv6."""

from __future__ import annotations

import pytest

from .harness import Runtime
from .tables import UNDEFINED, Row, check, row_id

ROWS: list[Row] = [
    ("base64.encode", ('""',), ""),
    ("base64.encode", ('"a"',), "YQ=="),
    ("base64.encode", ('"ab"',), "YWI="),
    ("base64.encode", ('"åäö?>"',), "w6XDpMO2Pz4="),
    ("base64url.encode", ('"åäö?>"',), "w6XDpMO2Pz4="),
    ("base64url.encode", ('"\\u00ff\\u00fe"',), "w7_Dvg=="),
    ("base64.decode", ('"YWI="',), "ab"),
    ("base64.decode", ('"YW\\nI="',), "ab"),
    ("base64.decode", ('"YWI"',), UNDEFINED),
    ("base64.decode", ('"YW=I"',), UNDEFINED),
    ("base64.decode", ('"w7_Dvg=="',), UNDEFINED),
    ("base64.decode", ("1",), UNDEFINED),
    ("base64.is_valid", ('"YWI="',), True),
    ("base64.is_valid", ('"YWI"',), False),
    ("base64.is_valid", ("1",), False),
    ("base64url.decode", ('"w7_Dvg"',), "\u00ff\u00fe"),
    ("base64url.decode", ('"w7_Dvg=="',), "\u00ff\u00fe"),
    ("base64url.decode", ('"a"',), UNDEFINED),
    ("base64url.decode", ('"w7+Dvg"',), UNDEFINED),
    ("json.marshal", ('{"b": [1, 2.50], "a": {3, 1}}',), '{"a":[1,3],"b":[1,2.50]}'),
    ("json.marshal", ('"<a&b>\\u2028\\n"',), r'"\u003ca\u0026b\u003e\u2028\n"'),
    ("json.marshal", ('{1: "x", [2]: null}',), '{"1":"x","[2]":null}'),
    ("json.unmarshal", ('"[1, {\\"a\\": 2.0}]"',), [1, {"a": 2}]),
    ("json.unmarshal", ('"[1,"',), UNDEFINED),
    ("json.unmarshal", ('"{} x"',), UNDEFINED),
    ("json.unmarshal", ("[]",), UNDEFINED),
    ("json.is_valid", ('" {\\"a\\": [1, -0.5e+3, true, null, \\"\\\\u00e9\\"]} "',), True),
    ("json.is_valid", ('"[01]"',), False),
    ("json.is_valid", ('"[1,]"',), False),
    ("json.is_valid", ('"{\\"a\\" 1}"',), False),
    ("json.is_valid", ('"\\"\\\\x\\""',), False),
    ("json.is_valid", ('""',), False),
    ("json.is_valid", ("{}",), False),
    ("json.filter", ('{"a": {"b": 1, "c": 2}, "d": 3}', '["a/b"]'), {"a": {"b": 1}}),
    ("json.filter", ('{"a/b": 1, "c~d": 2, "e": 3}', '{"a~1b", "c~0d"}'), {"a/b": 1, "c~d": 2}),
    ("json.filter", ('{"a": [{"b": 1, "c": 2}]}', '[["a", "0", "c"]]'), {"a": [{"c": 2}]}),
    ("json.filter", ('{"a": {"b": 1}}', '{"a/b/c/d"}'), {"a": {"b": 1}}),
    ("json.filter", ('{"a": {"b": 1}}', '"a"'), UNDEFINED),
    ("json.filter", ('{"a": {"b": 1}}', "[1]"), UNDEFINED),
    ("json.filter", ("[]", '["a"]'), UNDEFINED),
    ("json.remove", ('{"a": {"b": 1, "c": 2}}', '["/a/b"]'), {"a": {"c": 2}}),
    ("json.remove", ('{"a": [1, 2, 3]}', '["a/1"]'), {"a": [1, 3]}),
    ("json.remove", ('{"a": [1, 2, 3]}', '[["a", 1]]'), {"a": [1, 2, 3]}),
    ("json.remove", ('{"a": {"b": 1}, "c": 2}', '{"a/b", "a"}'), {"c": 2}),
    ("json.remove", ('{"a": 1}', '{""}'), {"a": 1}),
    ("json.remove", ('{"a": 1}', '{{"a": 1}}'), UNDEFINED),
    ("net.cidr_contains", ('"10.0.0.0/8"', '"10.255.255.255"'), True),
    ("net.cidr_contains", ('"10.0.0.0/8"', '"11.0.0.0"'), False),
    ("net.cidr_contains", ('"10.0.0.0/8"', '"10.0.0.0/7"'), False),
    ("net.cidr_contains", ('"0.0.0.0/0"', '"::1"'), False),
    ("net.cidr_contains", ('"::ffff:0:0/96"', '"1.2.3.4"'), True),
    ("net.cidr_contains", ('"fd00::/8"', '"fdff:ffff::1"'), True),
    ("net.cidr_contains", ('"fd00::/8"', '"fe00::"'), False),
    ("net.cidr_contains", ('"10.0.0.0/33"', '"10.0.0.1"'), UNDEFINED),
    ("net.cidr_contains", ('"010.0.0.0/8"', '"10.0.0.1"'), UNDEFINED),
    ("net.cidr_contains", ('"10.0.0.0/8"', '"10.0.0"'), UNDEFINED),
    ("net.cidr_contains", ('"1::2::3/64"', '"::1"'), UNDEFINED),
    ("net.cidr_overlap", ('"192.168.0.0/16"', '"192.168.1.1"'), True),
    ("net.cidr_intersects", ('"10.0.0.0/8"', '"10.1.0.0/16"'), True),
    ("net.cidr_intersects", ('"2001:db8::/32"', '"2001:db9::/32"'), False),
    ("net.cidr_intersects", ('"10.0.0.0/8"', '"10.0.0.1"'), UNDEFINED),
]


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_encoding_builtin(rt: Runtime, row: Row) -> None:
    check(rt, row)


def test_base64_round_trips_every_byte(rt: Runtime) -> None:
    raw = bytes(range(256))
    enc = rt.call_addr("base64.encode", rt.string(raw))
    assert rt.raw_string(rt.call_addr("base64.decode", enc)) == raw
