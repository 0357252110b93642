"""net.cidr_* (ipaddress) and net.lookup_ip_addr (network opt-in)."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, type_err, want_str
from cupcake_py.host.builtins._values import FrozenObject, freeze, sorted_values

Net = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_cidr(fname: str, s: str) -> Net:
    """Go's net.ParseCIDR (host bits allowed, the network is returned)."""
    if "/" not in s:
        raise BuiltinError(f"{fname}: invalid CIDR address: {s}")
    addr, _, bits = s.partition("/")
    if not bits.isdigit() or (len(bits) > 1 and bits[0] == "0"):
        raise BuiltinError(f"{fname}: invalid CIDR address: {s}")
    try:
        return ipaddress.ip_network(f"{ipaddress.ip_address(addr)}/{int(bits)}", strict=False)
    except ValueError:
        raise BuiltinError(f"{fname}: invalid CIDR address: {s}") from None


def _cidr_or_ip(fname: str, s: str) -> Net:
    if "/" in s:
        return parse_cidr(fname, s)
    try:
        return ipaddress.ip_network(ipaddress.ip_address(s))
    except ValueError:
        raise BuiltinError(f"{fname}: invalid IP address: {s}") from None


@builtin("net.cidr_is_valid")
def cidr_is_valid(ctx: BuiltinContext, cidr: Any) -> bool:
    if not isinstance(cidr, str):
        return False
    try:
        parse_cidr("net.cidr_is_valid", cidr)
    except BuiltinError:
        return False
    return True


@builtin("net.cidr_expand")
def cidr_expand(ctx: BuiltinContext, cidr: Any) -> frozenset[str]:
    net = parse_cidr("net.cidr_expand", want_str("net.cidr_expand", 1, cidr))
    if net.num_addresses > 1 << 24:
        raise BuiltinError(f"net.cidr_expand: CIDR {cidr} is too large to expand")
    return frozenset(str(a) for a in net)


def _default_mask_net(fname: str, s: str) -> Net:
    """A bare address becomes a network with Go's IP.DefaultMask (classful for IPv4)."""
    try:
        ip = ipaddress.ip_address(s)
    except ValueError:
        raise BuiltinError(f"{fname}: IPv4 invalid: {s}") from None
    if ip.version == 6:
        raise BuiltinError(f"{fname}: IPv6 invalid: needs prefix length")
    first = int(ip) >> 24
    bits = 8 if first < 0x80 else 16 if first < 0xC0 else 24 if first < 0xE0 else None
    if bits is None:
        raise BuiltinError(f"{fname}: IPv4 invalid: no default mask for {s}")
    return ipaddress.ip_network(f"{s}/{bits}", strict=False)


@builtin("net.cidr_merge")
def cidr_merge(ctx: BuiltinContext, addrs: Any) -> frozenset[str]:
    f = "net.cidr_merge"
    if not isinstance(addrs, list | tuple | frozenset):
        raise type_err(f, 1, addrs, "array", "set")
    v4: list[Any] = []
    v6: list[Any] = []
    for a in addrs:
        if not isinstance(a, str):
            raise type_err(f, 1, a, "string")
        net = parse_cidr(f, a) if "/" in a else _default_mask_net(f, a)
        (v4 if net.version == 4 else v6).append(net)
    merged = list(ipaddress.collapse_addresses(v4)) + list(ipaddress.collapse_addresses(v6))
    return frozenset(str(n) for n in merged)


def _entries(fname: str, pos: int, v: Any) -> list[tuple[Any, str]]:
    """(key, cidr-or-ip string) pairs of a string/array/set/object operand."""

    def addr(x: Any) -> str:
        if isinstance(x, str):
            return x
        if isinstance(x, list | tuple) and x and isinstance(x[0], str):
            return x[0]
        raise BuiltinError(f"{fname}: operand {pos}: element must be string or non-empty array")

    if isinstance(v, str):
        return [(v, v)]
    if isinstance(v, list | tuple):
        return [(i, addr(x)) for i, x in enumerate(v)]
    if isinstance(v, frozenset):
        return [(x, addr(x)) for x in sorted_values(v)]
    if isinstance(v, dict | FrozenObject):
        return [(k, addr(x)) for k, x in v.items()]
    raise type_err(fname, pos, v, "string", "array", "set", "object")


def _contains(outer: Net, inner: Net) -> bool:
    if isinstance(outer, ipaddress.IPv4Network) and isinstance(inner, ipaddress.IPv4Network):
        return inner.subnet_of(outer)
    if isinstance(outer, ipaddress.IPv6Network) and isinstance(inner, ipaddress.IPv6Network):
        return inner.subnet_of(outer)
    return False  # different IP versions


@builtin("net.cidr_contains_matches")
def cidr_contains_matches(ctx: BuiltinContext, cidrs: Any, cidrs_or_ips: Any) -> frozenset[Any]:
    f = "net.cidr_contains_matches"
    outer = [(k, parse_cidr(f, s)) for k, s in _entries(f, 1, cidrs)]
    inner = [(k, _cidr_or_ip(f, s)) for k, s in _entries(f, 2, cidrs_or_ips)]
    return frozenset((freeze(k1), freeze(k2)) for k1, n1 in outer for k2, n2 in inner if _contains(n1, n2))


HOSTS_FILE = "/etc/hosts"
_LOOPBACK = frozenset({"127.0.0.1", "::1"})


def _hosts_entries(host: str, path: str) -> frozenset[str]:
    """Addresses the hosts file gives ``host`` (case-insensitive), like Go's resolver reads it."""
    found: set[str] = set()
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = line.split("#", 1)[0].split()
                if len(fields) >= 2 and host.lower() in (n.lower() for n in fields[1:]):
                    try:
                        found.add(str(ipaddress.ip_address(fields[0].split("%")[0])))
                    except ValueError:
                        continue
    except OSError:
        return frozenset()
    return frozenset(found)


def is_localhost(host: str) -> bool:
    h = host.lower().rstrip(".")
    return h == "localhost" or h.endswith(".localhost")


@builtin("net.lookup_ip_addr")
def lookup_ip_addr(ctx: BuiltinContext, name: Any) -> frozenset[str]:
    """IP literals and localhost names (RFC 6761: never sent to DNS; answered from the hosts
    file, else the loopback addresses) need no network; other names need ``allow_net``."""
    host = want_str("net.lookup_ip_addr", 1, name)
    try:
        return frozenset({str(ipaddress.ip_address(host))})
    except ValueError:
        pass
    if is_localhost(host):
        return _hosts_entries(host.rstrip("."), HOSTS_FILE) or _LOOPBACK
    if not ctx.allow_net:
        raise BuiltinError(
            "net.lookup_ip_addr: network access is disabled; enable it with BuiltinContext(allow_net=True)"
        )
    old = socket.getdefaulttimeout()
    socket.setdefaulttimeout(ctx.net_timeout_s)
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        raise BuiltinError(f"net.lookup_ip_addr: lookup {host}: {exc}") from None
    finally:
        socket.setdefaulttimeout(old)
    return frozenset(str(ipaddress.ip_address(str(info[4][0]).split("%")[0])) for info in infos)
