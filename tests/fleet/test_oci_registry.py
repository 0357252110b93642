"""OCI distribution against Debian's real `docker-registry` (2.8) on loopback: `cupcake bundle push`
with OPA's media types, pull through a fleet.yml `oci:` source, enforcement by `cupcake eval`, the
manifest digest as the ETag, and the registry killed in the middle of a pull (the last good
bundle stays active, the failure is in the status)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from cupcake_py.fleet import build, opa_bundle, refresh, signing, sources, status
from cupcake_py.harness.examples import cupcake_command, run_eval
from tests.fleet.conftest import Machine
from tests.fleet.helpers import ORG_DENY_CURL, ORG_HALT_SHRED, bash, ec_pair, org_config
from tests.fleet.servers import Registry


@pytest.fixture()
def registry(tmp_path: Path) -> Iterator[Registry]:
    r = Registry(tmp_path)
    yield r
    r.kill()


def signed_archive(tmp: Path, revision: str, policies: dict[str, str], key: str, iat: int,
                   extra: dict[str, bytes] | None = None) -> bytes:
    b = build.build(str(org_config(tmp / f"src-{revision}", policies)), revision, wasm=False)
    b = opa_bundle.Bundle({**b.files, **(extra or {})})
    sig = signing.sign(b, key, "ES256", "ci", {"iat": iat})
    return opa_bundle.write({**b.files, opa_bundle.SIGNATURES: sig})


def test_push_pull_enforce_and_registry_killed_mid_pull(machine: Machine, registry: Registry) -> None:
    priv, pub = ec_pair(machine.root)
    ref = f"{registry.host}/acme/policy:stable"
    t0 = int(time.time()) - 100
    first = machine.root / "r1.tar.gz"
    first.write_bytes(signed_archive(machine.root, "1", {"curl": ORG_DENY_CURL}, priv.read_text(), t0))
    push = subprocess.run([*cupcake_command(), "bundle", "push", str(first), ref], capture_output=True, timeout=120)
    assert push.returncode == 0, push.stderr
    # what the registry stores is an OCI image manifest with OPA's media types
    req = urllib.request.Request(f"http://{registry.host}/v2/acme/policy/manifests/stable",
                                 headers={"Accept": sources.MANIFEST_TYPE})
    with urllib.request.urlopen(req, timeout=10) as resp:
        manifest = json.loads(resp.read())
    assert manifest["config"]["mediaType"] == "application/vnd.oci.image.config.v1+json"
    assert [la["mediaType"] for la in manifest["layers"]] == ["application/vnd.oci.image.layer.v1.tar+gzip"]

    machine.fleet_yml(f"bundles:\n  acme:\n    oci: {ref}\n    signing: {{keyid: ci}}\n"
                      f"keys:\n  ci: {{key: {pub}, algorithm: ES256}}\n")
    [o] = refresh.pull_once(str(machine.org))
    assert (o.ok, o.revision) == (True, "1"), o.message
    resp, _, _ = run_eval(bash(machine.project, "curl x"), machine.project, [], machine.env)
    assert resp == {"decision": "deny", "reason": "org: no curl", "rule_ids": ["ORG-CURL"]}
    [o] = refresh.pull_once(str(machine.org))
    assert (o.ok, o.changed, o.message) == (True, False, "not modified")  # the manifest digest is the ETag

    # revision 2 is large (32 MiB of data): the registry dies after the first chunk of the layer
    big = {"cupcake/blob.bin": os.urandom(32 * 1024 * 1024)}
    second = machine.root / "r2.tar.gz"
    second.write_bytes(signed_archive(machine.root, "2", {"curl": ORG_DENY_CURL, "shred": ORG_HALT_SHRED},
                                      priv.read_text(), t0 + 10, big))
    sources.push_oci(ref, second.read_bytes())
    from cupcake_py.engine.fleet_config import load

    config = load(str(machine.org))
    assert config is not None
    o = refresh.pull_source(str(machine.org), config, "acme", on_chunk=lambda n: registry.kill())
    assert not o.ok and ("broke off" in o.message or "truncated" in o.message), o.message
    assert registry.proc.poll() is not None
    assert status.load("acme")["code"] == "bundle_error"
    resp, _, _ = run_eval(bash(machine.project, "shred f"), machine.project, [], machine.env)
    assert resp == {"decision": "allow"}  # revision 1 is still the active one
    assert run_eval(bash(machine.project, "curl x"), machine.project, [], machine.env)[0]["decision"] == "deny"
    # the registry is gone altogether: still revision 1, and the failure is reported
    [o] = refresh.pull_once(str(machine.org))
    assert not o.ok and "cannot connect" in o.message


def test_oci_reference_parsing() -> None:
    assert sources.parse_ref("127.0.0.1:5000/a/b:v1") == ("127.0.0.1:5000", "a/b", "v1")
    assert sources.parse_ref("reg.example.com/a/b") == ("reg.example.com", "a/b", "latest")
    assert sources.parse_ref("localhost:5000/a@sha256:ab") == ("localhost:5000", "a", "sha256:ab")
    with pytest.raises(sources.FetchError):
        sources.parse_ref("just-a-name")


def test_registry_token_flow(machine: Machine, registry: Registry) -> None:
    """A registry that answers 401 with a Bearer challenge: push and pull fetch a token from its
    realm (with the configured Basic credentials) and repeat the request with it."""
    from tests.fleet.servers import TokenAuthProxy

    proxy = TokenAuthProxy(registry.host, basic="ci:s3cret")
    try:
        priv, pub = ec_pair(machine.root)
        blob = signed_archive(machine.root, "1", {"curl": ORG_DENY_CURL}, priv.read_text(), int(time.time()))
        ref = f"{proxy.host}/acme/policy:stable"
        with pytest.raises(sources.FetchError, match="token service"):
            sources.push_oci(ref, blob)  # no credentials: the realm refuses
        import base64

        basic = {"Authorization": "Basic " + base64.b64encode(b"ci:s3cret").decode()}
        sources.push_oci(ref, blob, headers=basic)
        assert proxy.refused >= 1 and proxy.token_requests
        assert "service=cupcake-test" in proxy.token_requests[-1] and "scope=repository" in proxy.token_requests[-1]
        machine.fleet_yml(f"bundles:\n  acme:\n    oci: {ref}\n    headers: {{Authorization: '{basic['Authorization']}'}}\n"
                          f"    signing: {{keyid: ci}}\nkeys:\n  ci: {{key: {pub}, algorithm: ES256}}\n")
        [o] = refresh.pull_once(str(machine.org))
        assert (o.ok, o.revision) == (True, "1"), o.message
    finally:
        proxy.close()
