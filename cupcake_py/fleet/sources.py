"""Fetching bundle archives: HTTP(S) with ETag / If-None-Match, an OCI registry (the
distribution HTTP API, OPA's media types), a local path. Never called on the eval path.

- `fetch(spec, etag, on_chunk=None) -> Fetched`: `changed` False when the source answers
  "not modified" (HTTP 304, or the OCI manifest digest equals `etag`, or the file's digest
  equals it). Fails with `FetchError` (a CupcakeError) naming the source: connection refused or
  reset, a status other than 200/304, a body shorter than its Content-Length or than the OCI
  layer's size (a registry that disappears mid-transfer), a digest mismatch, a body larger than
  `opa_bundle.MAX_BYTES`. `on_chunk(bytes_so_far)` is called as the body arrives (progress).
- `push_oci(ref, blob, plain_http)`: upload the archive as an OCI image: config
  `application/vnd.oci.image.config.v1+json` (`{}`), one layer
  `application/vnd.oci.image.layer.v1.tar+gzip` (what OPA's OCI downloader and `oras push`
  use), manifest `application/vnd.oci.image.manifest.v1+json`; returns the manifest digest.
- `parse_ref("host:port/repo:tag")` -> (host, repository, tag or digest).
OCI over plain http is used when `plain_http` is true, by default only for loopback hosts.
Registry authentication: request headers from the config (e.g. `Authorization: Bearer ...`), and
the registry token flow (Docker / OCI distribution): a 401 with `WWW-Authenticate: Bearer
realm=...,service=...,scope=...` is answered by asking the realm for a token (anonymously, or with
the config's `Authorization` header when it is Basic) and repeating the request with it.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request

from cupcake_py.core.errors import CupcakeError
from cupcake_py.fleet.opa_bundle import MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cupcake_py.engine.fleet_config import BundleSource

MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json"
CONFIG_TYPE = "application/vnd.oci.image.config.v1+json"
LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip"
LAYER_TYPES = (LAYER_TYPE,)
TIMEOUT = 30.0
CHUNK = 64 * 1024


class FetchError(CupcakeError):
    pass


class Fetched:
    __slots__ = ("changed", "blob", "etag")

    def __init__(self, changed: bool, blob: bytes | None, etag: str | None) -> None:
        self.changed = changed
        self.blob = blob
        self.etag = etag


def _read_body(resp: http.client.HTTPResponse, where: str, expected: int | None,
               on_chunk: Callable[[int], None] | None) -> bytes:
    length = resp.headers.get("Content-Length")
    want = expected if expected is not None else int(length) if length and length.isdigit() else None
    if want is not None and want > MAX_BYTES:
        raise FetchError(f"{where}: {want} bytes, more than the {MAX_BYTES} a bundle may have")
    parts: list[bytes] = []
    got = 0
    try:
        while True:
            chunk = resp.read(CHUNK)
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
            if got > MAX_BYTES:
                raise FetchError(f"{where}: more than {MAX_BYTES} bytes")
            if on_chunk is not None:
                on_chunk(got)
    except (http.client.IncompleteRead, ConnectionError, TimeoutError, OSError) as e:
        raise FetchError(f"{where}: the transfer broke off after {got} bytes ({type(e).__name__}: {e})") from None
    if want is not None and got != want:
        raise FetchError(f"{where}: truncated download ({got} of {want} bytes)")
    return b"".join(parts)


def _open(req: urllib.request.Request, where: str) -> http.client.HTTPResponse:
    try:
        resp: http.client.HTTPResponse = urllib.request.urlopen(req, timeout=TIMEOUT)  # noqa: S310 - configured URL
        return resp
    except urllib.error.HTTPError as e:
        if e.code == 304:
            raise
        raise FetchError(f"{where}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, http.client.HTTPException) as e:
        reason = getattr(e, "reason", e)
        raise FetchError(f"{where}: cannot connect ({reason})") from None


class _Registry:
    """Requests to one registry, with the token a Bearer challenge asked for (per scope)."""

    def __init__(self, base: str, headers: dict[str, str]) -> None:
        self.base = base
        self.headers = headers
        self.tokens: dict[str, str] = {}

    def open(self, url: str, where: str, method: str = "GET", data: bytes | None = None,
             extra: dict[str, str] | None = None) -> http.client.HTTPResponse:
        def request(token: str | None) -> urllib.request.Request:
            h = {**self.headers, **(extra or {})}
            if token is not None:
                h["Authorization"] = f"Bearer {token}"
            return urllib.request.Request(url, method=method, data=data, headers=h)

        token = next(iter(self.tokens.values()), None)
        try:
            return _urlopen(request(token))
        except urllib.error.HTTPError as e:
            challenge = e.headers.get("WWW-Authenticate", "") if e.code == 401 else ""
            e.close()
            if not challenge.lower().startswith("bearer "):
                raise FetchError(f"{where}: HTTP {e.code} {e.reason}") from None
        token = self._token(_challenge(challenge), where)
        try:
            return _urlopen(request(token))
        except urllib.error.HTTPError as e:
            e.close()
            raise FetchError(f"{where}: HTTP {e.code} {e.reason} (with the registry's token)") from None

    def _token(self, params: dict[str, str], where: str) -> str:
        realm = params.get("realm")
        if not realm:
            raise FetchError(f"{where}: the registry's Bearer challenge names no realm")
        query = urllib.parse.urlencode({k: v for k, v in params.items() if k in ("service", "scope")})
        auth = self.headers.get("Authorization", "")
        h = {"Authorization": auth} if auth.lower().startswith("basic ") else {}
        try:
            with _urlopen(urllib.request.Request(f"{realm}?{query}" if query else realm, headers=h)) as resp:
                doc = json.loads(resp.read())
        except urllib.error.HTTPError as e:
            raise FetchError(f"{where}: the token service {realm} answered HTTP {e.code}") from None
        except ValueError:
            raise FetchError(f"{where}: the token service {realm} did not answer JSON") from None
        token = doc.get("token") or doc.get("access_token") if isinstance(doc, dict) else None
        if not isinstance(token, str) or not token:
            raise FetchError(f"{where}: the token service {realm} gave no token")
        self.tokens[params.get("scope", "")] = token
        return token


def _challenge(header: str) -> dict[str, str]:
    """The parameters of `Bearer realm="...",service="...",scope="..."`."""
    import re

    return {k: v for k, v in re.findall(r'(\w+)="([^"]*)"', header[len("bearer "):])}


def _urlopen(req: urllib.request.Request) -> http.client.HTTPResponse:
    """urlopen with the fetch timeout; HTTPError passes through, other failures become FetchError."""
    try:
        resp: http.client.HTTPResponse = urllib.request.urlopen(req, timeout=TIMEOUT)  # noqa: S310 - configured URL
        return resp
    except urllib.error.HTTPError:
        raise
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, http.client.HTTPException) as e:
        reason = getattr(e, "reason", e)
        raise FetchError(f"{req.full_url}: cannot connect ({reason})") from None


def fetch_http(url: str, etag: str | None, headers: dict[str, str],
               on_chunk: Callable[[int], None] | None = None) -> Fetched:
    req = urllib.request.Request(url, headers={**headers, **({"If-None-Match": etag} if etag else {})})
    try:
        resp = _open(req, url)
    except urllib.error.HTTPError as e:  # 304
        e.close()
        return Fetched(False, None, etag)
    with resp:
        blob = _read_body(resp, url, None, on_chunk)
        return Fetched(True, blob, resp.headers.get("ETag"))


def fetch_path(path: str, etag: str | None) -> Fetched:
    from cupcake_py.fleet import opa_bundle

    try:
        blob = opa_bundle.write(opa_bundle.read_dir(path).files) if os.path.isdir(path) else open(path, "rb").read()
    except OSError as e:
        raise FetchError(f"{path}: cannot be read: {e.strerror or e}") from None
    except CupcakeError as e:
        raise FetchError(f"{path}: {e}") from None
    digest = "sha256:" + hashlib.sha256(blob).hexdigest()
    return Fetched(digest != etag, blob if digest != etag else None, digest)


# ----------------------------------------------------------------------------- OCI


def parse_ref(ref: str) -> tuple[str, str, str]:
    """(host[:port], repository, tag or sha256:digest)."""
    r = ref.removeprefix("oci://")
    host, sep, rest = r.partition("/")
    if not sep or not rest or ("." not in host and ":" not in host and host != "localhost"):
        raise FetchError(f"OCI reference {ref!r}: expected host[:port]/repository[:tag|@digest]")
    if "@" in rest:
        repo, _, reference = rest.partition("@")
    else:
        repo, _, reference = rest.rpartition(":") if ":" in rest.rsplit("/", 1)[-1] else (rest, "", "latest")
    if not repo or not reference:
        raise FetchError(f"OCI reference {ref!r}: expected host[:port]/repository[:tag|@digest]")
    return host, repo, reference


def _base(host: str, plain_http: bool | None) -> str:
    name = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
    loopback = name in ("localhost", "127.0.0.1", "[::1]")
    return f"{'http' if (plain_http if plain_http is not None else loopback) else 'https'}://{host}"


def fetch_oci(ref: str, etag: str | None, headers: dict[str, str], plain_http: bool | None = None,
              on_chunk: Callable[[int], None] | None = None) -> Fetched:
    host, repo, reference = parse_ref(ref)
    base = _base(host, plain_http)
    where = f"oci {ref}"
    registry = _Registry(base, headers)
    try:
        resp = registry.open(f"{base}/v2/{repo}/manifests/{reference}", where, extra={"Accept": MANIFEST_TYPE})
    except FetchError as e:
        raise FetchError(str(e).replace(f"{base}/v2/{repo}/manifests/{reference}", where)) from None
    with resp:
        raw = _read_body(resp, where, None, None)
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    if reference.startswith("sha256:") and digest != reference:
        raise FetchError(f"{where}: the manifest's digest {digest} is not the one asked for")
    if digest == etag:
        return Fetched(False, None, etag)
    try:
        manifest = json.loads(raw)
        layers = [layer for layer in manifest["layers"] if layer.get("mediaType") in LAYER_TYPES]
    except (ValueError, KeyError, TypeError, AttributeError):
        raise FetchError(f"{where}: not an OCI image manifest") from None
    if len(layers) != 1:
        raise FetchError(f"{where}: expected one layer of type {LAYER_TYPE}, found {len(layers)}")
    layer = layers[0]
    size, layer_digest = layer.get("size"), layer.get("digest")
    if not isinstance(size, int) or not isinstance(layer_digest, str) or not layer_digest.startswith("sha256:"):
        raise FetchError(f"{where}: the layer descriptor lacks a size or a sha256 digest")
    if size > MAX_BYTES:
        raise FetchError(f"{where}: the layer has {size} bytes, more than {MAX_BYTES}")
    blob_resp = registry.open(f"{base}/v2/{repo}/blobs/{layer_digest}", f"{where} (layer)")
    with blob_resp:
        blob = _read_body(blob_resp, where, size, on_chunk)
    if "sha256:" + hashlib.sha256(blob).hexdigest() != layer_digest:
        raise FetchError(f"{where}: the layer does not match its digest {layer_digest}")
    return Fetched(True, blob, digest)


def _upload(registry: _Registry, repo: str, data: bytes) -> str:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    base = registry.base
    with registry.open(f"{base}/v2/{repo}/blobs/uploads/", f"push {repo}", "POST", b"") as resp:
        location = resp.headers.get("Location")
    if not location:
        raise FetchError(f"push {repo}: the registry gave no upload location")
    if location.startswith("/"):
        location = base + location
    url = location + ("&" if "?" in location else "?") + "digest=" + urllib.parse.quote(digest)
    with registry.open(url, f"push {repo}", "PUT", data, {"Content-Type": "application/octet-stream"}):
        pass
    return digest


def push_oci(ref: str, blob: bytes, plain_http: bool | None = None, headers: dict[str, str] | None = None) -> str:
    host, repo, reference = parse_ref(ref)
    if reference.startswith("sha256:"):
        raise FetchError(f"push {ref}: push to a tag, not a digest")
    base = _base(host, plain_http)
    registry = _Registry(base, headers or {})
    config = b"{}"
    config_digest = _upload(registry, repo, config)
    layer_digest = _upload(registry, repo, blob)
    manifest = json.dumps({
        "schemaVersion": 2, "mediaType": MANIFEST_TYPE,
        "config": {"mediaType": CONFIG_TYPE, "digest": config_digest, "size": len(config)},
        "layers": [{"mediaType": LAYER_TYPE, "digest": layer_digest, "size": len(blob),
                    "annotations": {"org.opencontainers.image.title": "bundle.tar.gz"}}],
    }, separators=(",", ":")).encode()
    with registry.open(f"{base}/v2/{repo}/manifests/{reference}", f"push {ref}", "PUT", manifest,
                       {"Content-Type": MANIFEST_TYPE}):
        pass
    return "sha256:" + hashlib.sha256(manifest).hexdigest()


def fetch(spec: BundleSource, etag: str | None, on_chunk: Callable[[int], None] | None = None) -> Fetched:
    if spec.url:
        return fetch_http(spec.url, etag, dict(spec.headers), on_chunk)
    if spec.oci:
        return fetch_oci(spec.oci, etag, dict(spec.headers), spec.plain_http, on_chunk)
    return fetch_path(spec.path or "", etag)
