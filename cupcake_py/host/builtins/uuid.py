"""uuid.rfc4122 (random v4, memoised per evaluation) and uuid.parse."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_str

_GREGORIAN_OFFSET = 122192928000000000  # 100ns intervals between 1582-10-15 and 1970-01-01


@builtin("uuid.rfc4122")
def rfc4122(ctx: BuiltinContext, k: Any) -> str:
    key = ("uuid.rfc4122", want_str("uuid.rfc4122", 1, k))
    if key not in ctx.cache:
        b = bytearray(ctx.rand.getrandbits(128).to_bytes(16, "big"))
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        h = b.hex()
        ctx.cache[key] = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    value: str = ctx.cache[key]
    return value


def parse_uuid_bytes(s: str) -> bytes:
    """google/uuid.Parse forms: 36 chars, {…}, urn:uuid:…, or 32 hex digits."""
    if len(s) == 45 and s[:9].lower() == "urn:uuid:":
        s = s[9:]
    elif len(s) == 38 and s[0] == "{" and s[-1] == "}":
        s = s[1:-1]
    if len(s) == 36:
        if any(s[i] != "-" for i in (8, 13, 18, 23)):
            raise ValueError("invalid UUID format")
        s = s.replace("-", "")
        if len(s) != 32:
            raise ValueError("invalid UUID format")
    elif len(s) != 32:
        raise ValueError(f"invalid UUID length: {len(s)}")
    try:
        return bytes.fromhex(s)
    except ValueError:
        raise ValueError("invalid UUID format") from None


def _variant(b: bytes) -> str:
    v = b[8]
    if v & 0xC0 == 0x80:
        return "RFC4122"
    if v & 0xE0 == 0xC0:
        return "Microsoft"
    if v & 0xE0 == 0xE0:
        return "Future"
    return "Reserved"


@builtin("uuid.parse")
def uuid_parse(ctx: BuiltinContext, uuid: Any) -> dict[str, Any]:
    s = want_str("uuid.parse", 1, uuid)
    try:
        b = parse_uuid_bytes(s)
    except ValueError as exc:
        raise BuiltinError(f"uuid.parse: {exc}") from None
    version = b[6] >> 4
    out: dict[str, Any] = {"version": version, "variant": _variant(b)}
    if version in (1, 2):
        t = int.from_bytes(b[0:4], "big") | int.from_bytes(b[4:6], "big") << 32
        t |= (int.from_bytes(b[6:8], "big") & 0x0FFF) << 48
        rel = t - _GREGORIAN_OFFSET
        sec, rem = divmod(rel, 10_000_000) if rel >= 0 else (-((-rel) // 10_000_000), -((-rel) % 10_000_000))
        out["time"] = sec * 1_000_000_000 + rem * 100
        out["clocksequence"] = int.from_bytes(b[8:10], "big") & 0x3FFF
        node = b[10:16]
        out["nodeid"] = "-".join(f"{x:02x}" for x in node)
        scope = "local" if node[0] & 0x02 else "global"
        cast = "multicast" if node[0] & 0x01 else "unicast"
        out["macvariables"] = f"{scope}:{cast}"
    if version == 2:
        out["id"] = int.from_bytes(b[0:4], "big")
        out["domain"] = {0: "Person", 1: "Group", 2: "Org"}.get(b[9], f"Domain{b[9]}")
    return out
