"""The org tier end to end: bundles pulled over HTTP (ETags) and from a path, verified, activated,
and enforced by the real `cupcake eval` process; every fault keeps the last good bundle; no good
bundle at all fails closed; the activated files and the org dir are protected; `cupcake status`."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cupcake_py.fleet import build, opa_bundle, refresh, signing, status
from cupcake_py.harness.examples import cupcake_command, run_eval
from tests.fleet.conftest import Machine
from tests.fleet.helpers import ORG_DENY_CURL, bash, org_config, policy, rsa_pair
from tests.fleet.servers import BundleServer

ORG_DENY_WGET = policy("org.wget", "deny", "wget", "ORG-WGET", "org: no wget")
PROJECT_ALLOW_ALL = policy("p.ctx", "add_context", "", "P", "p").replace(
    'add_context contains {"rule_id": "P", "severity": "HIGH", "reason": "p"} if { contains(input.tool_input.command, '
    '"") }', 'add_context contains "project context" if { true }')


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, str]:
    d = tmp_path_factory.mktemp("keys")
    priv, pub = rsa_pair(d)
    other, _ = rsa_pair(d, "other")
    return priv.read_text(), pub, other.read_text()  # other: a private key nobody configured


@pytest.fixture()
def server() -> Iterator[BundleServer]:
    s = BundleServer()
    yield s
    s.close()


def make_bundle(tmp: Path, revision: str, policies: dict[str, str], key: str | None, iat: int | None = None,
                claims: dict[str, object] | None = None) -> bytes:
    src = org_config(tmp / f"src-{revision}-{time.monotonic_ns()}", policies)
    b = build.build(str(src), revision, wasm=False)
    if key is not None:
        sig = signing.sign(b, key, "RS256", "ci", {"iat": iat or int(time.time()), **(claims or {})})
        b = opa_bundle.Bundle({**b.files, opa_bundle.SIGNATURES: sig})
    return opa_bundle.write(b.files)


def http_fleet(m: Machine, url: str, pub: Path, extra: str = "") -> None:
    m.fleet_yml(f"bundles:\n  acme:\n    url: {url}\n    signing: {{keyid: ci}}\n{extra}"
                f"keys:\n  ci: {{key: {pub}, algorithm: RS256}}\n")


def decide(m: Machine, command: str) -> tuple[object, int, str]:
    return run_eval(bash(m.project, command), m.project, [], m.env)


def test_http_pull_etag_and_enforcement(machine: Machine, server: BundleServer, keys: tuple[str, Path, str]) -> None:
    priv, pub, _ = keys
    server.files["/acme.tar.gz"] = make_bundle(machine.root, "1", {"curl": ORG_DENY_CURL}, priv)
    http_fleet(machine, server.url + "/acme.tar.gz", pub)
    [out] = refresh.pull_once(str(machine.org))
    assert (out.ok, out.changed, out.revision) == (True, True, "1"), out.message
    resp, code, _ = decide(machine, "curl http://x")
    assert (resp, code) == ({"decision": "deny", "reason": "org: no curl", "rule_ids": ["ORG-CURL"]}, 0)
    assert decide(machine, "ls")[0] == {"decision": "allow"}
    [again] = refresh.pull_once(str(machine.org))
    assert (again.ok, again.changed, again.message) == (True, False, "not modified")
    assert [s for _, _, s in server.requests] == [200, 304]
    assert server.requests[1][1] is not None  # If-None-Match carried the ETag


def test_faults_keep_the_last_good_bundle(machine: Machine, server: BundleServer,
                                          keys: tuple[str, Path, str]) -> None:
    priv, pub, other = keys
    path = "/acme.tar.gz"
    http_fleet(machine, server.url + path, pub)
    t0 = int(time.time()) - 1000
    server.files[path] = make_bundle(machine.root, "1", {"curl": ORG_DENY_CURL}, priv, iat=t0)
    assert refresh.pull_once(str(machine.org))[0].ok
    r2 = make_bundle(machine.root, "2", {"curl": ORG_DENY_CURL, "wget": ORG_DENY_WGET}, priv, iat=t0 + 10)
    server.files[path] = r2
    assert refresh.pull_once(str(machine.org))[0].revision == "2"

    def refused(blob: bytes, match: str) -> None:
        server.files[path] = blob
        [o] = refresh.pull_once(str(machine.org))
        assert not o.ok and match in o.message, o.message
        assert o.revision == "2"
        assert decide(machine, "wget x")[0]["rule_ids"] == ["ORG-WGET"]  # type: ignore[index]  # r2 still active
        st = status.load("acme")
        assert st["code"] and match in st["message"]

    # a file changed after signing
    b = opa_bundle.read(make_bundle(machine.root, "3", {"curl": ORG_DENY_CURL}, priv, iat=t0 + 20))
    files = dict(b.files)
    files["policies/opencode/curl.rego"] = files["policies/opencode/curl.rego"].replace(b'"curl"', b'"nothing"')
    refused(opa_bundle.write(files), "its hash does not match")
    refused(make_bundle(machine.root, "4", {"curl": ORG_DENY_CURL}, other, iat=t0 + 30), "does not verify")
    refused(make_bundle(machine.root, "5", {"curl": ORG_DENY_CURL}, None), "not signed")
    refused(make_bundle(machine.root, "1b", {}, priv, iat=t0 + 5), "older than the active")  # replayed old bundle
    refused(make_bundle(machine.root, "2", {}, priv, iat=t0 + 40), "already active with different content")
    refused(make_bundle(machine.root, "1", {}, priv, iat=t0 + 50), "revision '1' is older")
    refused(make_bundle(machine.root, "6", {}, priv, iat=t0 + 60, claims={"exp": int(time.time()) - 5}), "expired")
    server.files[path] = r2
    server.truncate.add(path)
    server.files[path] = make_bundle(machine.root, "7", {}, priv, iat=t0 + 70)
    [o] = refresh.pull_once(str(machine.org))
    assert not o.ok and ("truncated" in o.message or "broke off" in o.message), o.message
    server.truncate.clear()
    # rollback allowed when configured
    http_fleet(machine, server.url + path, pub, "    allow_rollback: true\n")
    server.files[path] = make_bundle(machine.root, "1", {"curl": ORG_DENY_CURL}, priv, iat=t0 + 1)
    [o] = refresh.pull_once(str(machine.org))
    assert (o.ok, o.revision) == (True, "1"), o.message
    assert decide(machine, "wget x")[0] == {"decision": "allow"}


def test_no_good_bundle_fails_closed(machine: Machine, server: BundleServer, keys: tuple[str, Path, str]) -> None:
    _, pub, _ = keys
    http_fleet(machine, server.url + "/none.tar.gz", pub)
    resp, code, _ = decide(machine, "ls")
    assert resp["decision"] == "deny", resp  # type: ignore[index]
    assert "no verified, activated bundle" in resp["reason"]  # type: ignore[index]
    [o] = refresh.pull_once(str(machine.org))  # a 404: still nothing good
    assert not o.ok and "HTTP 404" in o.message
    assert decide(machine, "ls")[0]["decision"] == "deny"  # type: ignore[index]
    http_fleet(machine, server.url + "/none.tar.gz", pub, "    on_missing: allow\n")
    resp, _, err = decide(machine, "ls")
    assert resp == {"decision": "allow"} and "on_missing: allow" in err


def test_changes_to_the_activated_bundle_fail_closed(machine: Machine, server: BundleServer,
                                                      keys: tuple[str, Path, str]) -> None:
    priv, pub, _ = keys
    server.files["/a.tar.gz"] = make_bundle(machine.root, "1", {"curl": ORG_DENY_CURL}, priv)
    http_fleet(machine, server.url + "/a.tar.gz", pub)
    assert refresh.pull_once(str(machine.org))[0].ok
    store = Path(machine.env["XDG_STATE_HOME"]) / "cupcake-py/fleet/acme"
    [tree] = list((store / "trees").iterdir())
    rego = tree / "policies/opencode/curl.rego"
    original = rego.read_bytes()
    # through a tool, the agent cannot get there: the store is a protected state path
    for event in ({"tool": "write", "args": {"filePath": str(rego), "content": "package x\n"}},
                  {"tool": "bash", "args": {"command": f"sed -i s/curl/nothing/ {rego}"}},
                  {"tool": "bash", "args": {"command": f"rm {store / 'active'}"}}):
        ev = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(machine.project),
                         **event}).encode()
        resp, _, _ = run_eval(ev, machine.project, [], machine.env)
        assert resp["decision"] in ("deny", "block"), (event, resp)  # type: ignore[index]
    assert rego.read_bytes() == original
    rego.write_bytes(original.replace(b'"curl"', b'"nothing"'))  # an agent weakens the org policy in place
    resp, _, _ = decide(machine, "curl x")
    assert resp["decision"] == "deny" and "was changed after activation" in resp["reason"]  # type: ignore[index]
    rego.write_bytes(original)
    (tree / "policies/opencode/zz.rego").write_text("package cupcake.policies.zz\n")
    resp, _, _ = decide(machine, "ls")
    assert resp["decision"] == "deny" and "added" in resp["reason"]  # type: ignore[index]
    (tree / "policies/opencode/zz.rego").unlink()
    assert decide(machine, "ls")[0] == {"decision": "allow"}
    pointer = store / "active"
    blob = bytearray(pointer.read_bytes())
    blob[-5] ^= 1
    pointer.write_bytes(bytes(blob))
    resp, _, _ = decide(machine, "ls")
    assert resp["decision"] == "deny" and "MAC" in resp["reason"]  # type: ignore[index]
    # the next poll does not send the ETag (the store is not intact): the bundle comes again and is re-activated
    [o] = refresh.pull_once(str(machine.org))
    assert o.ok and o.changed and server.requests[-1][2] == 200, (o.message, server.requests)
    assert decide(machine, "curl x")[0]["rule_ids"] == ["ORG-CURL"]  # type: ignore[index]


def test_org_dir_wins_and_is_protected(machine: Machine) -> None:
    org_config(machine.org, {"curl": ORG_DENY_CURL})
    cfg = machine.project / ".cupcake"
    (cfg / "policies/opencode/ctx.rego").write_text(PROJECT_ALLOW_ALL)
    (cfg / "rulebook.yml").write_text("builtins:\n  rulebook_security_guardrails: {enabled: false}\n")
    resp, _, _ = decide(machine, "curl x")
    assert resp == {"decision": "deny", "reason": "org: no curl", "rule_ids": ["ORG-CURL"]}
    assert decide(machine, "ls")[0] == {"decision": "allow", "context": ["project context"]}
    for flags in (["--no-global"], ["--policy-dir", str(machine.project)], ["--no-cache"]):  # no flag turns it off
        resp, _, _ = run_eval(bash(machine.project, "curl x"), machine.project, flags, machine.env)
        assert resp["rule_ids"] == ["ORG-CURL"], (flags, resp)  # type: ignore[index]
    # the project switched its own guardrails off; the org tier's still protect the org files
    target = machine.org / "policies/opencode/curl.rego"
    before = target.read_bytes()
    event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(machine.project),
                        "tool": "write", "args": {"filePath": str(target), "content": "package x\n"}}).encode()
    resp, _, _ = run_eval(event, machine.project, [], machine.env)
    assert resp["decision"] in ("deny", "block"), resp  # type: ignore[index]
    resp, _, _ = decide(machine, f"rm -rf {machine.org}")
    assert resp["decision"] in ("deny", "block"), resp  # type: ignore[index]
    assert target.read_bytes() == before


def test_path_source_and_status(machine: Machine, server: BundleServer, keys: tuple[str, Path, str]) -> None:
    priv, pub, _ = keys
    archive = machine.root / "acme.tar.gz"
    archive.write_bytes(make_bundle(machine.root, "42", {"curl": ORG_DENY_CURL}, priv))
    machine.fleet_yml(f"labels: {{team: sec}}\nbundles:\n  acme:\n    path: {archive}\n    signing: {{keyid: ci}}\n"
                      f"  broken:\n    url: {server.url}/missing.tar.gz\n    on_missing: allow\n"
                      f"keys:\n  ci: {{key: {pub}}}\n")
    outcomes = {o.name: o for o in refresh.pull_once(str(machine.org))}
    assert outcomes["acme"].ok and outcomes["acme"].revision == "42"
    assert not outcomes["broken"].ok
    proc = subprocess.run([*cupcake_command(), "status", "--json"], capture_output=True, env=machine.env,
                          cwd=machine.project, timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    org, glob, project = doc["tiers"]
    assert (org["tier"], glob["tier"], project["tier"]) == ("org", "global", "project")
    by_name = {b["name"]: b for b in org["bundles"]}
    assert by_name["acme"]["active_revision"] == "42" and by_name["acme"]["usable"]
    assert by_name["acme"]["last_successful_activation"]
    assert by_name["broken"]["active_revision"] is None and "HTTP 404" in by_name["broken"]["message"]
    assert project["path"] == str(machine.project / ".cupcake")
    text = subprocess.run([*cupcake_command(), "status"], capture_output=True, env=machine.env, cwd=machine.project,
                          timeout=120).stdout.decode()
    assert f"org      {machine.org} present" in text and "bundle acme [path " in text and "revision '42'" in text
    assert "bundle broken [url " in text and "NO GOOD BUNDLE" in text and "HTTP 404" in text
    proc = subprocess.run([*cupcake_command(), "status", "--report", server.url + "/status"], capture_output=True,
                          env=machine.env, cwd=machine.project, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(server.reports[-1])
    assert report["bundles"]["acme"]["active_revision"] == "42"
    assert report["labels"]["team"] == "sec" and report["labels"]["version"].startswith("cupcake-py")
    assert report["bundles"]["broken"]["code"] == "bundle_error"


def test_cli_build_sign_verify(tmp_path: Path, keys: tuple[str, Path, str]) -> None:
    priv, pub, other = keys
    src = org_config(tmp_path / "src", {"curl": ORG_DENY_CURL})
    key = tmp_path / "k.pem"
    key.write_text(priv)
    claims = tmp_path / "claims.json"
    claims.write_text('{"scope": "write", "iss": "ci"}')
    out = tmp_path / "b.tar.gz"

    def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*cupcake_command(), "bundle", *args], capture_output=True, timeout=300, cwd=tmp_path)

    p = cli("build", "-b", str(src), "-o", str(out), "-r", "7", "--signing-key", str(key), "--signing-alg",
            "RS256", "--claims-file", str(claims))
    assert p.returncode == 0, p.stderr
    ok = cli("verify", str(out), "--verification-key", str(pub), "--scope", "write", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["claims"]["iss"] == "ci"
    assert cli("verify", str(out)).returncode == 1  # signed, but no key given
    other_pem = tmp_path / "o.pem"
    _, other_pub = rsa_pair(tmp_path, "o")
    other_pem.write_text(other_pub.read_text())
    bad = cli("verify", str(out), "--verification-key", str(other_pem))
    assert bad.returncode == 1 and b"does not verify" in bad.stderr
    files = dict(opa_bundle.read(out.read_bytes()).files)
    files["policies/opencode/curl.rego"] += b"\n# edited\n"
    out.write_bytes(opa_bundle.write(files))
    assert b"hash does not match" in cli("verify", str(out), "--verification-key", str(pub)).stderr
    assert cli("sign", str(out), "--signing-key", str(key)).returncode == 0  # re-signed
    assert cli("verify", str(out), "--verification-key", str(pub)).returncode == 0


def test_cli_pull_and_state_paths(machine: Machine, server: BundleServer, keys: tuple[str, Path, str]) -> None:
    priv, pub, _ = keys
    server.files["/a.tar.gz"] = make_bundle(machine.root, "9", {"curl": ORG_DENY_CURL}, priv)
    http_fleet(machine, server.url + "/a.tar.gz", pub)
    p = subprocess.run([*cupcake_command(), "bundle", "pull", "--json"], capture_output=True, env=machine.env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == {"name": "acme", "ok": True, "changed": True, "revision": "9",
                                    "message": "activated"}
    server.files["/a.tar.gz"] = b"not a bundle"
    p = subprocess.run([*cupcake_command(), "bundle", "pull"], capture_output=True, env=machine.env, timeout=300)
    assert p.returncode == 1 and b"FAILED" in p.stderr
    from cupcake_py.engine.state_paths import state_paths

    paths = {(e["path"], e["kind"]) for e in state_paths(None, None, str(machine.project))}
    assert (str(machine.org), "config") in paths
    assert any(k == "state" and str(Path(machine.env["XDG_STATE_HOME"])) in pth for pth, k in paths)
