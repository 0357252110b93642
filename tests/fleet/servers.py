"""Real parts for the fleet tests, all on 127.0.0.1 with ports the kernel picks:
- `BundleServer`: a stdlib HTTP server with ETags (If-None-Match -> 304) that serves bundles and
  takes status reports; it can cut a body short (Content-Length promised, connection closed).
- `Registry`: Debian's `docker-registry` (distribution 2.8) with storage in a temporary dir.
- `OTLPReceiver`: OTLP/HTTP logs, the protobuf decoded with opentelemetry-proto; can be "down"
  (answers 503) or stopped.
- `SyslogListener`: RFC 6587 octet-counted TCP syslog.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import shutil
import socket
import socketserver
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

REGISTRY_BIN = shutil.which("docker-registry") or "/usr/bin/docker-registry"


class _Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, *_a: object) -> None:
        pass


class BundleServer:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.requests: list[tuple[str, str | None, int]] = []  # (path, If-None-Match, status)
        self.reports: list[bytes] = []
        self.truncate: set[str] = set()
        owner = self

        class Handler(_Quiet):
            def do_GET(self) -> None:  # noqa: N802
                body = owner.files.get(self.path)
                inm = self.headers.get("If-None-Match")
                if body is None:
                    owner.requests.append((self.path, inm, 404))
                    self.send_error(404)
                    return
                etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
                if inm == etag:
                    owner.requests.append((self.path, inm, 304))
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.end_headers()
                    return
                owner.requests.append((self.path, inm, 200))
                self.send_response(200)
                self.send_header("Content-Type", "application/gzip")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", etag)
                self.end_headers()
                if self.path in owner.truncate:
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                n = int(self.headers.get("Content-Length") or 0)
                owner.reports.append(self.rfile.read(n))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Registry:
    """docker-registry on a free loopback port; `kill()` ends it at once (SIGKILL)."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.host = f"127.0.0.1:{self.port}"
        storage = tmp / "registry-storage"
        storage.mkdir()
        config = tmp / "registry.yml"
        config.write_text(
            "version: 0.1\nlog: {level: error}\nstorage:\n  filesystem: {rootdirectory: " + str(storage) + "}\n"
            "  delete: {enabled: true}\nhttp:\n  addr: 127.0.0.1:" + str(self.port) + "\n")
        self.proc = subprocess.Popen([REGISTRY_BIN, "serve", str(config)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("docker-registry exited: " + (self.proc.stderr.read() or b"").decode()
                                       if self.proc.stderr else "docker-registry exited") from None
                time.sleep(0.05)
        raise RuntimeError("docker-registry did not start listening")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


class OTLPReceiver:
    """Collects decoded OTLP log records: (attributes dict, body str) in arrival order."""

    def __init__(self) -> None:
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

        self.records: list[tuple[dict[str, Any], str]] = []
        self.down = False
        self.posts = 0
        owner = self

        class Handler(_Quiet):
            def do_POST(self) -> None:  # noqa: N802
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.posts += 1
                if owner.down:
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                req = logs_service_pb2.ExportLogsServiceRequest()
                req.ParseFromString(data)
                for rl in req.resource_logs:
                    for sl in rl.scope_logs:
                        for rec in sl.log_records:
                            attrs = {kv.key: _value(kv.value) for kv in rec.attributes}
                            owner.records.append((attrs, rec.body.string_value))
                out = logs_service_pb2.ExportLogsServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/logs"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _value(v: Any) -> Any:
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


class SyslogListener:
    """TCP syslog with octet counting (RFC 6587): the messages in arrival order."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        owner = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                data = self.rfile.read()
                while data:
                    n, _, rest = data.partition(b" ")
                    size = int(n)
                    owner.messages.append(rest[:size].decode("utf-8"))
                    data = rest[size:]

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.address = f"127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def fleet_env(tmp: Path, org: Path) -> dict[str, str]:
    """The process environment of a machine of the fleet: private XDG dirs and the org dir."""
    env = dict(os.environ)
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_STATE_HOME", "state")):
        (tmp / sub).mkdir(mode=0o700, exist_ok=True)
        env[var] = str(tmp / sub)
    env["CUPCAKE_ORG_CONFIG"] = str(org)
    return env


class TokenAuthProxy:
    """A registry front that demands the distribution token flow: requests without `Bearer <token>`
    get a 401 challenge naming its own /token realm; the token is handed out (to Basic
    `user:secret` when `basic` is set) and requests carrying it are relayed to the real registry."""

    TOKEN = "t0k3n-for-tests"

    def __init__(self, registry_host: str, basic: str | None = None) -> None:
        import base64
        import http.client
        import json

        self.token_requests: list[str] = []
        self.refused = 0
        owner = self
        want_basic = "Basic " + base64.b64encode(basic.encode()).decode() if basic else None

        class Handler(_Quiet):
            def _relay(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                if self.path.startswith("/token"):
                    owner.token_requests.append(self.path)
                    if want_basic is not None and self.headers.get("Authorization") != want_basic:
                        self.send_response(401)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    out = json.dumps({"token": owner.TOKEN}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(out)))
                    self.end_headers()
                    self.wfile.write(out)
                    return
                if self.headers.get("Authorization") != f"Bearer {owner.TOKEN}":
                    owner.refused += 1
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", f'Bearer realm="{owner.url}/token",service="cupcake-test",'
                                                         'scope="repository:acme/policy:pull,push"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                conn = http.client.HTTPConnection(registry_host, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("authorization", "connection")}
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("content-length", "connection", "transfer-encoding"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                conn.close()

            do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = _relay  # noqa: N815

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.host = f"127.0.0.1:{self.httpd.server_address[1]}"
        self.url = f"http://{self.host}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
