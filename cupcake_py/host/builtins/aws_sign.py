"""providers.aws.sign_req: AWS Signature Version 4 request signing."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any
from urllib.parse import quote, urlsplit

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import OperandError, want_num, want_obj
from cupcake_py.host.builtins.encoding import go_json
from cupcake_py.host.builtins.go_time_layout import civil, format_civil

_F = "providers.aws.sign_req"
_REQ_KEYS = ("method", "url")
_CFG_KEYS = ("aws_access_key", "aws_region", "aws_secret_access_key", "aws_service")


def _keys(keys: Any) -> str:
    return "{" + ", ".join(json.dumps(k) for k in sorted(keys)) + "}"


def _require(obj: dict[Any, Any], names: tuple[str, ...], pos: int, what: str) -> None:
    missing = [k for k in names if k not in obj]
    if missing:
        raise OperandError(f"{_F}: operand {pos} missing required {what} parameters(s): {_keys(missing)}")
    bad = [k for k in names if not isinstance(obj[k], str)]
    if bad:
        raise OperandError(
            f"{_F}: operand {pos} invalid values for required {what} parameters(s): {_keys(bad)}"
        )


def _hmac(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    """SigV4 key derivation: HMAC chain over date, region, service and "aws4_request"."""
    key = _hmac(("AWS4" + secret).encode(), date)
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    return key


def _canonical_uri(path: str) -> str:
    """The URL path escaped (OPA signs an empty path as empty, not "/")."""
    return quote(path, safe="/-_.~%")


def _canonical_query(query: str) -> str:
    pairs = []
    for part in query.split("&") if query else []:
        k, _, v = part.partition("=")
        pairs.append((quote(k, safe="-_.~%"), quote(v, safe="-_.~%")))
    return "&".join(f"{k}={v}" for k, v in sorted(pairs))


@builtin("providers.aws.sign_req")
def sign_req(ctx: BuiltinContext, request: Any, aws_config: Any, time_ns: Any) -> dict[Any, Any]:
    req = dict(want_obj(_F, 1, request))
    cfg = dict(want_obj(_F, 2, aws_config))
    _require(req, _REQ_KEYS, 1, "request")
    _require(cfg, _CFG_KEYS, 2, "AWS config")
    if "disable_payload_signing" in cfg and not isinstance(cfg["disable_payload_signing"], bool):
        raise OperandError(f"{_F}: operand 2 invalid value for 'disable_payload_signing' in AWS config")
    want_num(_F, 3, time_ns)
    if not isinstance(time_ns, int) or isinstance(time_ns, bool):  # OPA needs an int64 literal
        raise OperandError(f"{_F}: operand 3 could not convert time_ns value into a unix timestamp")
    ns = time_ns
    c = civil(ns)
    amz_date = format_civil(c, "20060102T150405Z")
    date = amz_date[:8]
    if "raw_body" in req:
        payload = str(req["raw_body"]).encode()
    elif "body" in req:
        payload = go_json(req["body"]).encode()
    else:
        payload = b""
    unsigned = cfg.get("disable_payload_signing") is True
    content_hash = "UNSIGNED-PAYLOAD" if unsigned else hashlib.sha256(payload).hexdigest()
    url = urlsplit(req["url"])
    headers: dict[str, str] = {str(k): str(v) for k, v in dict(req.get("headers") or {}).items()}
    signed: dict[str, str] = {k.lower(): v.strip() for k, v in headers.items()}
    signed.setdefault("x-amz-content-sha256", content_hash)
    signed.update({"host": url.netloc, "x-amz-date": amz_date})
    token = cfg.get("aws_session_token")
    if isinstance(token, str) and token:
        signed["x-amz-security-token"] = token
    names = sorted(signed)
    canonical = "\n".join(
        [
            req["method"],  # as given: OPA does not upper-case it
            _canonical_uri(url.path),
            _canonical_query(url.query),
            "".join(f"{k}:{signed[k]}\n" for k in names),
            ";".join(names),
            content_hash,
        ]
    )
    scope = f"{date}/{cfg['aws_region']}/{cfg['aws_service']}/aws4_request"
    to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    key = signing_key(cfg["aws_secret_access_key"], date, cfg["aws_region"], cfg["aws_service"])
    sig = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    out_headers = dict(headers)
    out_headers.update(
        {k: v for k, v in signed.items() if k in ("host", "x-amz-date", "x-amz-security-token")}
    )
    out_headers["x-amz-content-sha256"] = content_hash
    out_headers["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={cfg['aws_access_key']}/{scope},SignedHeaders={';'.join(names)},Signature={sig}"
    )
    return {**req, "headers": out_headers}
