"""http.send: disabled unless the host opts in (BuiltinContext.allow_net); timeouts always apply."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, OperandError, want_obj
from cupcake_py.host.builtins._values import freeze, parse_json, to_json_text, type_name
from cupcake_py.host.builtins.encoding import yaml_unmarshal
from cupcake_py.host.builtins.time import parse_duration

_F = "http.send"
_ALLOWED = frozenset(
    "method url body enable_redirect force_json_decode force_yaml_decode headers raw_body "
    "tls_use_system_certs tls_ca_cert tls_ca_cert_file tls_ca_cert_env_variable tls_client_cert "
    "tls_client_cert_file tls_client_cert_env_variable tls_client_key tls_client_key_file "
    "tls_client_key_env_variable tls_insecure_skip_verify tls_server_name timeout cache force_cache "
    "force_cache_duration_seconds raise_error caching_mode max_retry_attempts cache_ignored_headers".split()
)


def _fmt_keys(keys: set[str]) -> str:
    return "{" + ", ".join(json.dumps(k) for k in sorted(keys)) + "}"


def _validate(req: dict[Any, Any]) -> None:
    keys = {k for k in req if isinstance(k, str)}
    bad = {str(k) for k in req} - _ALLOWED
    if bad:
        raise OperandError(f"{_F}: invalid request parameters(s): {_fmt_keys(bad)}")
    missing = {"method", "url"} - keys
    if missing:
        raise OperandError(f"{_F}: missing required request parameters(s): {_fmt_keys(missing)}")
    for k in ("method", "url"):
        if not isinstance(req[k], str):
            raise BuiltinError(f'{_F}: "{k}" must be a string but got {type_name(req[k])}')


def _timeout(ctx: BuiltinContext, req: dict[Any, Any]) -> float:
    t = req.get("timeout")
    if t is None:
        return ctx.net_timeout_s
    try:
        secs = parse_duration(t) / 1e9 if isinstance(t, str) else float(t) / 1e9
    except ValueError as exc:
        raise BuiltinError(f"{_F}: {exc}") from None
    return min(secs, ctx.net_timeout_s) if secs > 0 else ctx.net_timeout_s


def _send(ctx: BuiltinContext, req: dict[Any, Any]) -> dict[str, Any]:
    body: bytes | None = None
    if "raw_body" in req:
        body = str(req["raw_body"]).encode()
    elif "body" in req and req["body"] is not None:
        body = to_json_text(req["body"]).encode()
    headers = {str(k): str(v) for k, v in dict(req.get("headers") or {}).items()}
    if body is not None and "raw_body" not in req:
        headers.setdefault("Content-Type", "application/json")
    r = urllib.request.Request(req["url"], data=body, headers=headers, method=req["method"].upper())
    context = ssl.create_default_context()
    if req.get("tls_insecure_skip_verify") is True:
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        with urllib.request.urlopen(r, timeout=_timeout(ctx, req), context=context) as resp:  # noqa: S310
            status, reason, raw, hdrs = resp.status, resp.reason, resp.read(), resp.headers
    except urllib.error.HTTPError as exc:
        status, reason, raw, hdrs = exc.code, exc.reason, exc.read(), exc.headers
    out_headers: dict[str, list[str]] = {}
    for k, v in hdrs.items():
        out_headers.setdefault(k.lower(), []).append(v)
    text = raw.decode("utf-8", errors="replace")
    ctype = hdrs.get("Content-Type", "") or ""
    decoded: Any = None
    try:
        if req.get("force_json_decode") is True or "json" in ctype:
            decoded = parse_json(text) if text else None
        elif req.get("force_yaml_decode") is True or "yaml" in ctype:
            decoded = yaml_unmarshal(ctx, text)
    except (ValueError, BuiltinError):
        decoded = None
    return {
        "status": f"{status} {reason}",
        "status_code": status,
        "headers": out_headers,
        "body": decoded,
        "raw_body": text,
    }


@builtin("http.send")
def http_send(ctx: BuiltinContext, request: Any) -> dict[str, Any]:
    req = want_obj(_F, 1, request)
    _validate(req)
    if not ctx.allow_net:
        raise BuiltinError(f"{_F}: network access is disabled; enable it with BuiltinContext(allow_net=True)")
    key = ("http.send", freeze(req))
    if key in ctx.cache:
        cached: dict[str, Any] = ctx.cache[key]
        return cached
    try:
        resp = _send(ctx, req)
    except (OSError, ValueError) as exc:
        if req.get("raise_error", True) is not False:
            raise BuiltinError(f"{_F}: {req['method']} {req['url']}: {exc}") from None
        resp = {"status_code": 0, "error": {"code": "eval_http_send_network_error", "message": str(exc)}}
    ctx.cache[key] = resp
    return resp
