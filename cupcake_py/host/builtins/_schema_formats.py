"""The `format` checks of json.match_schema, as OPA's JSON-schema library (its gojsonschema fork)
makes them: Go's time.Parse layouts for date/time, Go's url.Parse rules for URIs, Go's
net.ParseIP for addresses, Go's net/mail.ParseAddress for e-mail (_mail_address), RE2 for
regexes, the library's own patterns for the rest.

In: a document value and a format name. Out: whether the value has the format. As OPA: a
value that is not a string has every format, and an unknown format name is always met.
Nothing here raises; a value a check cannot parse does not have the format.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from cupcake_py.host.builtins import go_time_layout
from cupcake_py.host.builtins._mail_address import is_address
from cupcake_py.host.builtins._re2 import RegexError, compile_go

_HOSTNAME = (r"^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])"
             r"(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$")
_URI_TEMPLATE = r"^([^{]*({[^}]*})?)*$"
_UUID = r"^(?i)[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$"
_JSON_POINTER = r"^(?:/(?:[^~/]|~0|~1)*)*$"
_REL_JSON_POINTER = r"^(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]|~0|~1)*)*)$"
_DATE_TIME_LAYOUTS = ("15:04:05", "15:04:05Z07:00", "2006-01-02", "2006-01-02T15:04:05Z07:00",
                      "2006-01-02T15:04:05.999999999Z07:00")
_HOST_OK = "!$&'()*+,;=:[]<>\"-_.~"
_USERINFO_OK = "-._:~!$&'()*+,;=%@"


def _match(pattern: str, s: str) -> bool:
    return compile_go(pattern).search(s) is not None


def _time_layouts(s: str, layouts: tuple[str, ...]) -> bool:
    for layout in layouts:
        try:
            go_time_layout.parse(layout, s)
        except Exception:  # noqa: BLE001, S112 - any parse failure: try the next layout
            continue
        return True
    return False


def _escapes_ok(s: str) -> bool:
    """Every `%` starts a two-hex-digit escape (Go's url.unescape)."""
    i = s.find("%")
    while i >= 0:
        if len(s) < i + 3 or not all(c in "0123456789abcdefABCDEF" for c in s[i + 1:i + 3]):
            return False
        i = s.find("%", i + 3)
    return True


def _scheme(s: str) -> tuple[str, str] | None:
    """Go's url.getScheme: (scheme, rest); None for "missing protocol scheme"."""
    for i, c in enumerate(s):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                return "", s
            continue
        if c == ":":
            return None if i == 0 else (s[:i], s[i + 1:])
        return "", s
    return "", s


def _authority_ok(authority: str) -> bool:
    userinfo, at, host = authority.rpartition("@")
    if at and not (all(c.isalnum() and c.isascii() or c in _USERINFO_OK for c in userinfo)
                   and _escapes_ok(userinfo)):
        return False
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return False
        port = host[end + 1:]
        if port and not (port.startswith(":") and port[1:].isdigit() or port == ":"):
            return False
        return True
    if ":" in host:
        port = host[host.rfind(":") + 1:]
        if port and not (port.isascii() and port.isdigit()):
            return False
    return _escapes_ok(host) and all(not c.isascii() or c.isalnum() or c in _HOST_OK for c in host)


def _go_url(s: str) -> tuple[str, str] | None:
    """Go's url.Parse: (scheme, path) of a parsable URL, None where it returns an error."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in s):
        return None
    rest, _, frag = s.partition("#")
    if not _escapes_ok(frag):
        return None
    if rest == "*":
        return "", "*"
    got = _scheme(rest)
    if got is None:
        return None
    scheme, rest = got
    rest = rest.partition("?")[0]
    if not rest.startswith("/"):
        if scheme:
            return scheme, ""  # opaque
        if ":" in rest.partition("/")[0]:
            return None  # first path segment in URL cannot contain colon
    if rest.startswith("//") and (scheme or not rest.startswith("///")):
        authority, slash, path = rest[2:].partition("/")
        if not _authority_ok(authority):
            return None
        rest = slash + path
    return (scheme, rest) if _escapes_ok(rest) else None


def _uri(s: str) -> bool:
    u = _go_url(s)
    return u is not None and u[0] != "" and "\\" not in s


def _uri_reference(s: str) -> bool:
    return _go_url(s) is not None and "\\" not in s


def _uri_template(s: str) -> bool:
    u = _go_url(s)
    return u is not None and "\\" not in s and _match(_URI_TEMPLATE, u[1])


def _ip(s: str, sep: str) -> bool:
    if "%" in s or sep not in s:  # Go's ParseIP takes no zone
        return False
    try:
        ipaddress.ip_address(s)
    except ValueError:
        return False
    return True


def _regex(s: str) -> bool:
    if s == "":
        return True
    try:
        compile_go(s)
    except RegexError:
        return False
    return True


_CHECKS: dict[str, Any] = {
    "date": lambda s: _time_layouts(s, ("2006-01-02",)),
    "time": lambda s: _time_layouts(s, ("15:04:05Z07:00", "15:04:05")),
    "date-time": lambda s: _time_layouts(s, _DATE_TIME_LAYOUTS),
    "hostname": lambda s: _match(_HOSTNAME, s) and len(s) < 256,
    "email": is_address,
    "idn-email": is_address,
    "ipv4": lambda s: _ip(s, "."),
    "ipv6": lambda s: _ip(s, ":"),
    "uri": _uri,
    "iri": _uri,
    "uri-reference": _uri_reference,
    "iri-reference": _uri_reference,
    "uri-template": _uri_template,
    "uuid": lambda s: _match(_UUID, s),
    "regex": _regex,
    "json-pointer": lambda s: _match(_JSON_POINTER, s),
    "relative-json-pointer": lambda s: _match(_REL_JSON_POINTER, s),
}


def conforms(value: Any, name: str) -> bool:
    """Whether `value` has format `name` (OPA: non-strings and unknown formats always do)."""
    check = _CHECKS.get(name)
    if check is None or not isinstance(value, str):
        return True
    return bool(check(value))
