"""uri.is_valid and uri.parse (RFC 3986 reference parsing, Go net/url field names)."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, accepts, want_str
from cupcake_py.host.builtins._re2 import compile_go

# RFC 3986 appendix B, plus validation of each component.
_SPLIT = r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$"
_SCHEME = r"^[A-Za-z][A-Za-z0-9+.\-]*$"
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHARS = r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|" + _PCT + r")*$"
_USERINFO = r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|" + _PCT + r")*$"
_REGNAME = r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|" + _PCT + r")*$"
_IPLIT = r"^\[[0-9A-Fa-f:.]+\]$|^\[v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+\]$"


def _m(pattern: str, s: str) -> bool:
    return compile_go(pattern).search(s) is not None


def parse_uri(s: str) -> dict[str, Any]:
    m = compile_go(_SPLIT).search(s)
    if m is None:
        raise ValueError("invalid URI")
    scheme, authority, path, query, fragment = m.groups()
    if not scheme or not _m(_SCHEME, scheme):
        raise ValueError("missing or invalid scheme")
    out: dict[str, Any] = {"scheme": scheme.lower(), "path": path}
    if not _m(_PCHARS, path):
        raise ValueError("invalid character in path")
    if authority is not None:
        userinfo, at, hostport = authority.rpartition("@")
        if at and not _m(_USERINFO, userinfo):
            raise ValueError("invalid userinfo")
        host, port = hostport, ""
        if hostport.startswith("["):
            end = hostport.find("]")
            host, rest = hostport[: end + 1], hostport[end + 1 :]
            if end == -1 or not _m(_IPLIT, host) or (rest and not rest.startswith(":")):
                raise ValueError("invalid host")
            port = rest[1:]
        elif ":" in hostport:
            host, _, port = hostport.rpartition(":")
        if port and not port.isdigit():
            raise ValueError(f"invalid port {port!r}")
        if not hostport.startswith("[") and not _m(_REGNAME, host):
            raise ValueError("invalid host")
        out["host"] = host
        if port:
            out["port"] = port
        if at:
            out["userinfo"] = userinfo
    for name, part in (("query", query), ("fragment", fragment)):
        if part is not None:
            if not _m(_PCHARS, part):
                raise ValueError(f"invalid character in {name}")
            out[name] = part
    return out


@builtin("uri.is_valid")
def uri_is_valid(ctx: BuiltinContext, uri: Any) -> bool:
    return accepts(parse_uri, uri, ValueError)


@builtin("uri.parse")
def uri_parse(ctx: BuiltinContext, uri: Any) -> dict[str, Any]:
    try:
        return parse_uri(want_str("uri.parse", 1, uri))
    except ValueError as exc:
        raise BuiltinError(f"uri.parse: {exc}") from None
