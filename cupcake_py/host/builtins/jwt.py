"""io.jwt.*: decode, verify (HS/RS/PS/ES/EdDSA), decode_verify with constraints, encode_sign(_raw)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_obj, want_str
from cupcake_py.host.builtins._jose import (
    ALGS,
    JoseError,
    b64url_decode,
    b64url_encode,
    jwk_to_key,
    public_keys,
)
from cupcake_py.host.builtins._jose import sign as jws_sign
from cupcake_py.host.builtins._jose import verify as jws_verify
from cupcake_py.host.builtins._values import parse_json, thaw, type_name
from cupcake_py.host.builtins.encoding import go_json


@dataclass(frozen=True, slots=True)
class Token:
    header_raw: bytes
    header: dict[str, Any]
    payload_raw: bytes
    signature: bytes
    signing_input: bytes


def _split(fname: str, token: str) -> list[str]:
    if "." not in token:
        raise BuiltinError(f"{fname}: encoded JWT had no period separators")
    parts = token.split(".")
    if len(parts) != 3:
        raise BuiltinError(f"{fname}: encoded JWT must have 3 sections, found {len(parts)}")
    return parts


def _section(fname: str, what: str, text: str) -> bytes:
    try:
        return b64url_decode(text)
    except JoseError as exc:
        raise BuiltinError(f"{fname}: JWT {what} had invalid encoding: {exc}") from None


def _json_obj(fname: str, what: str, raw: bytes) -> dict[str, Any]:
    try:
        v = parse_json(raw)
    except ValueError as exc:
        raise BuiltinError(f"{fname}: JWT {what} had invalid JSON: {exc}") from None
    if not isinstance(v, dict):
        raise BuiltinError(f"{fname}: JWT {what} must be a JSON object")
    return v


def parse_token(fname: str, token: str) -> Token:
    h, p, s = _split(fname, token)
    header_raw = _section(fname, "header", h)
    header = _json_obj(fname, "header", header_raw)
    if "enc" in header:
        raise BuiltinError(f"{fname}: JWT is a JWE object, which is not supported")
    payload_raw = _section(fname, "payload", p)
    sig = _section(fname, "signature", s)
    return Token(header_raw, header, payload_raw, sig, f"{h}.{p}".encode())


def _is_nested(header: dict[str, Any]) -> bool:
    cty = header.get("cty")
    return isinstance(cty, str) and cty.upper() == "JWT"


def _inner_token(raw: bytes) -> str:
    """The payload of a nested JWT: a JSON string holding the inner token (or the bare token)."""
    text = raw.decode("utf-8", errors="replace")
    try:
        inner = json.loads(text)
    except ValueError:
        return text
    return inner if isinstance(inner, str) else text


@builtin("io.jwt.decode")
def jwt_decode(ctx: BuiltinContext, jwt: Any) -> list[Any]:
    f = "io.jwt.decode"
    tok = parse_token(f, want_str(f, 1, jwt))
    while _is_nested(tok.header):
        tok = parse_token(f, _inner_token(tok.payload_raw))
    payload = _json_obj(f, "payload", tok.payload_raw)
    return [tok.header, payload, tok.signature.hex()]


# ---------------------------------------------------------------- verify_*


def _verify_with(fname: str, alg: str, token: Any, key: Any) -> bool:
    tok = parse_token(fname, want_str(fname, 1, token))
    k = want_str(fname, 2, key)
    if alg.startswith("HS"):
        return jws_verify(alg, k.encode(), tok.signing_input, tok.signature)
    try:
        keys = public_keys(k)
    except JoseError as exc:
        raise BuiltinError(f"{fname}: {exc}") from None
    return any(jws_verify(alg, key_obj, tok.signing_input, tok.signature) for _, key_obj in keys)


def _register_verify(alg: str) -> None:
    name = "io.jwt.verify_eddsa" if alg == "EdDSA" else f"io.jwt.verify_{alg.lower()}"

    def fn(ctx: BuiltinContext, token: Any, key: Any) -> bool:
        return _verify_with(name, alg, token, key)

    builtin(name)(fn)


for _alg in sorted(ALGS):
    _register_verify(_alg)


# ------------------------------------------------------------ decode_verify

_CONSTRAINT_KEYS = frozenset({"cert", "secret", "alg", "iss", "aud", "time"})
_INVALID: list[Any] = [False, {}, {}]


def _ns(v: Any) -> Decimal:
    return Decimal(v) if isinstance(v, int) else Decimal(str(v))


def _check_signature(f: str, tok: Token, cons: dict[str, Any]) -> bool:
    alg = tok.header.get("alg")
    if not isinstance(alg, str) or alg not in ALGS:
        return False
    if "alg" in cons and cons["alg"] != alg:
        return False
    crit = tok.header.get("crit")
    if crit is not None:  # no critical extensions are understood
        return False
    if "secret" in cons:
        if not alg.startswith("HS"):
            return False
        return jws_verify(alg, str(cons["secret"]).encode(), tok.signing_input, tok.signature)
    if alg.startswith("HS"):
        return False
    try:
        keys = public_keys(cons["cert"])
    except JoseError as exc:
        raise BuiltinError(f"{f}: {exc}") from None
    kid = tok.header.get("kid")
    candidates = [k for key_id, k in keys if kid is None or key_id is None or key_id == kid]
    return any(jws_verify(alg, k, tok.signing_input, tok.signature) for k in candidates)


def _check_claims(payload: dict[str, Any], cons: dict[str, Any], now_ns: int) -> bool:
    """Claims of a token whose signature verified; a non-number exp/nbf is an error (OPA)."""
    t = _ns(cons["time"]) if "time" in cons else Decimal(now_ns)
    checks: tuple[tuple[str, Callable[[Decimal], bool]], ...] = (("exp", lambda v: t < v), ("nbf", lambda v: t >= v))
    for claim, ok in checks:
        if claim in payload:
            v = payload[claim]
            if isinstance(v, bool) or not isinstance(v, int | Decimal):
                raise BuiltinError(f"io.jwt.decode_verify: {claim} value must be a number")
            if not ok(_ns(v) * 1_000_000_000):
                return False
    if "iss" in cons and payload.get("iss") != cons["iss"]:
        return False
    aud = payload.get("aud")
    if "aud" in cons:
        want = cons["aud"]
        if isinstance(aud, str):
            return bool(aud == want)
        if isinstance(aud, list):
            return want in aud
        return False
    return aud is None


@builtin("io.jwt.decode_verify")
def decode_verify(ctx: BuiltinContext, jwt: Any, constraints: Any) -> list[Any]:
    f = "io.jwt.decode_verify"
    token = want_str(f, 1, jwt)
    cons = {k: thaw(v) for k, v in want_obj(f, 2, constraints).items()}
    unknown = set(cons) - _CONSTRAINT_KEYS
    if unknown:
        raise BuiltinError(f"{f}: unknown token validation constraint: {sorted(map(str, unknown))[0]}")
    if ("cert" in cons) == ("secret" in cons):
        raise BuiltinError(f"{f}: exactly one of 'cert' or 'secret' must be given")
    for k in ("cert", "secret"):
        if k in cons and not isinstance(cons[k], str):
            raise BuiltinError(f"{f}: '{k}' constraint must be a string but got {type_name(cons[k])}")
    if "time" in cons and (isinstance(cons["time"], bool) or not isinstance(cons["time"], int | Decimal)):
        raise BuiltinError(f"{f}: 'time' constraint must be a number")
    tok = parse_token(f, token)
    while True:
        if not _check_signature(f, tok, cons):
            return _INVALID
        if not _is_nested(tok.header):
            break
        tok = parse_token(f, _inner_token(tok.payload_raw))
    try:
        payload = _json_obj(f, "payload", tok.payload_raw)
    except BuiltinError:
        return _INVALID
    if not _check_claims(payload, cons, ctx.now_ns):
        return _INVALID
    return [True, tok.header, payload]


# ------------------------------------------------------------------ encode


def _sign_raw(f: str, header_text: str, payload_text: str, key_text: str) -> str:
    prefix = f"{f}: missing or invalid 'alg' header: "
    try:
        header = json.loads(header_text)
    except ValueError:
        reason = (
            "cannot parse JSON" if header_text.lstrip().startswith("{") else 'jwsbb: header "alg" not found'
        )
        raise BuiltinError(prefix + reason) from None
    alg = header.get("alg") if isinstance(header, dict) else None
    if not isinstance(alg, str):
        raise BuiltinError(prefix + 'jwsbb: header "alg" not found')
    if alg not in ALGS:
        raise BuiltinError(f"{f}: unknown JWS algorithm: {alg}")
    if header.get("typ") == "JWT":
        try:
            json.loads(payload_text)
        except ValueError:
            raise BuiltinError(f"{f}: type is JWT but payload is not JSON") from None
    try:
        jwk = json.loads(key_text)
        if not isinstance(jwk, dict):
            raise JoseError("failed to parse JWK")
        key = jwk_to_key(jwk)
        signing_input = f"{b64url_encode(header_text.encode())}.{b64url_encode(payload_text.encode())}"
        sig = jws_sign(alg, key, signing_input.encode())
    except (JoseError, ValueError) as exc:
        raise BuiltinError(f"{f}: {exc}") from None
    return f"{signing_input}.{b64url_encode(sig)}"


@builtin("io.jwt.encode_sign_raw")
def encode_sign_raw(ctx: BuiltinContext, headers: Any, payload: Any, key: Any) -> str:
    f = "io.jwt.encode_sign_raw"
    return _sign_raw(f, want_str(f, 1, headers), want_str(f, 2, payload), want_str(f, 3, key))


@builtin("io.jwt.encode_sign")
def encode_sign(ctx: BuiltinContext, headers: Any, payload: Any, key: Any) -> str:
    f = "io.jwt.encode_sign"
    h, p, k = want_obj(f, 1, headers), want_obj(f, 2, payload), want_obj(f, 3, key)
    return _sign_raw(f, go_json(h), go_json(p), go_json(k))
