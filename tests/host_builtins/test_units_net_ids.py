"""units.*, net.*, semver.*, uuid.parse, uri.*."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from cupcake_py.host.builtins import BuiltinContext, net
from tests.host_builtins.calls import call, fails


@pytest.mark.parametrize(
    ("name", "text", "want"),
    [
        ("units.parse", "10K", 10000), ("units.parse", "10Ki", 10240), ("units.parse", "10KI", 10240),
        ("units.parse", "500m", Decimal("0.5")), ("units.parse", "1M", 10**6), ("units.parse", "1mi", 2**20),
        ("units.parse", "1.1Ki", Decimal("1126.4")), ("units.parse", "2.5e3K", 2500000),
        ("units.parse", "5E", 5 * 10**18), ("units.parse", '"100TI"', 100 * 2**40), ("units.parse", "-3.5E2m", Decimal("-0.35")),
        ("units.parse", ".0", 0), ("units.parse_bytes", "10KB", 10000), ("units.parse_bytes", "10kib", 10240),
        ("units.parse_bytes", "1.1KiB", 1126), ("units.parse_bytes", "4.5e1GiB", 45 * 2**30),
        ("units.parse_bytes", "10eb", 10 * 10**18), ("units.parse_bytes", "12345", 12345),
    ],
)  # fmt: skip
def test_units(name: str, text: str, want: object) -> None:
    got = call(name, text)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize(
    ("name", "text", "msg"),
    [
        ("units.parse", "", "no amount provided"), ("units.parse", "G", "no amount provided"),
        ("units.parse", "0.0.0", "could not parse amount to a number"), ("units.parse", "1 K", "spaces not allowed"),
        ("units.parse", "1Q", "unit Q not recognized"), ("units.parse_bytes", "1kq", "byte unit kq not recognized"),
        ("units.parse_bytes", "x", "no byte amount provided"),
    ],
)  # fmt: skip
def test_units_errors(name: str, text: str, msg: str) -> None:
    fails(name, text, match=msg)


def test_cidr_builtins() -> None:
    assert call("net.cidr_is_valid", "10.0.0.0/8") is True
    assert call("net.cidr_is_valid", "10.0.0.1") is False
    assert call("net.cidr_is_valid", "2002::1234:abcd:ffff:c0a8:101/64") is True
    assert call("net.cidr_expand", "192.168.1.1/30") == frozenset(
        {"192.168.1.0", "192.168.1.1", "192.168.1.2", "192.168.1.3"}
    )
    fails("net.cidr_expand", "192.168.1.1/33", match="invalid CIDR address: 192.168.1.1/33")
    merged = call(
        "net.cidr_merge", ["192.0.2.112/30", "192.0.2.116/31", "192.0.2.118/31", "fe80::1/64", "10.1.2.3"]
    )
    assert merged == frozenset({"192.0.2.112/29", "fe80::/64", "10.0.0.0/8"})  # bare IPv4: classful mask
    fails("net.cidr_merge", ["fe80::1"], match="IPv6 invalid: needs prefix length")
    got = call(
        "net.cidr_contains_matches", {"k1": "1.1.1.0/24", "k2": ["1.1.2.0/24", 1]}, ["1.1.1.7", "1.1.2.0/25"]
    )
    assert got == frozenset({("k1", 0), ("k2", 1)})
    fails("net.cidr_contains_matches", "1.1.1.0/24", [[]], match="element must be string or non-empty array")


def test_lookup_ip_addr_needs_opt_in_for_names() -> None:
    assert call("net.lookup_ip_addr", "10.0.0.1") == frozenset({"10.0.0.1"})
    fails("net.lookup_ip_addr", "example.com", match="network access is disabled")
    fails("net.lookup_ip_addr", "localhost.example.com", match="network access is disabled")


def test_localhost_names_resolve_without_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RFC 6761: localhost names never go to DNS; answered from the hosts file, else loopback."""
    hosts = tmp_path / "hosts"
    hosts.write_text(
        "127.0.0.1 localhost vm # c\n::1 ip6-localhost localhost\n10.1.1.1 x.localhost\nbad localhost\n"
    )
    monkeypatch.setattr(net, "HOSTS_FILE", str(hosts))
    assert call("net.lookup_ip_addr", "localhost") == frozenset({"127.0.0.1", "::1"})
    assert call("net.lookup_ip_addr", "LocalHost.") == frozenset({"127.0.0.1", "::1"})
    assert call("net.lookup_ip_addr", "x.localhost") == frozenset({"10.1.1.1"})
    assert call("net.lookup_ip_addr", "y.localhost") == frozenset({"127.0.0.1", "::1"})  # not listed
    monkeypatch.setattr(net, "HOSTS_FILE", str(tmp_path / "missing"))
    assert call("net.lookup_ip_addr", "localhost") == frozenset({"127.0.0.1", "::1"})
    assert call("net.lookup_ip_addr", "localhost", ctx=BuiltinContext(allow_net=True)) <= {"127.0.0.1", "::1"}


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [("1.0.0", "2.0.0", -1), ("1.0.0-alpha", "1.0.0", -1), ("1.0.0-alpha.1", "1.0.0-alpha.beta", -1),
     ("1.0.0-beta.11", "1.0.0-beta.2", 1), ("1.0.0+build1", "1.0.0+build2", 0), ("1.10.0", "1.9.9", 1)],
)  # fmt: skip
def test_semver_compare(a: str, b: str, want: int) -> None:
    assert call("semver.compare", a, b) == want


def test_semver_validity() -> None:
    assert [call("semver.is_valid", v) for v in ("1.0.0", "v1.0.0", "01.0.0", "1.0", "1.0.0-01", 1)] == [
        True, False, False, False, False, False,
    ]  # fmt: skip
    fails("semver.compare", "1", "1.0.0", match='operand 1: string "1" is not a valid SemVer')


def test_uuid_parse() -> None:
    v2 = call("uuid.parse", "urn:uuid:000003e8-48b9-21ee-b200-325096b39f47")
    assert v2["version"] == 2 and v2["domain"] == "Person" and v2["id"] == 1000
    assert v2["clocksequence"] == 12800 and v2["nodeid"] == "32-50-96-b3-9f-47"
    assert v2["macvariables"] == "local:unicast"
    assert call("uuid.parse", "{00000000-0000-4000-8000-000000000000}") == {
        "version": 4,
        "variant": "RFC4122",
    }
    assert call("uuid.parse", "6bea8ef2d3d33cd184e09bab06a52ece")["version"] == 3
    fails("uuid.parse", "1234", match="invalid UUID length")


def test_uri() -> None:
    parsed = call("uri.parse", "https://user@example.com:8443/a/b?q=1#frag")
    assert parsed == {"scheme": "https", "host": "example.com", "port": "8443", "userinfo": "user",
                      "path": "/a/b", "query": "q=1", "fragment": "frag"}  # fmt: skip
    assert call("uri.is_valid", "urn:isbn:0451450523") is True
    assert call("uri.is_valid", "no scheme") is False
    assert call("uri.is_valid", "http://exa mple.com") is False
