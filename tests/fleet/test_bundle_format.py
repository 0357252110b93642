"""OPA bundle format and signatures: build, sign, verify (RS256, ES256, HS256), OPA's documented
signature example, the faults (a tampered file, an added file, a wrong key, an expired signature,
a signed bundle where none is expected), and the archive's own safety checks."""

from __future__ import annotations

import io
import json
import tarfile
import time
from pathlib import Path

import jwt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.fleet import build, hashing, opa_bundle, signing
from tests.fleet.helpers import ORG_DENY_CURL, ORG_HALT_SHRED, ec_pair, org_config, rsa_pair

HMAC = "a-shared-secret-of-at-least-32-bytes!!"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> opa_bundle.Bundle:
    d = org_config(tmp_path_factory.mktemp("org") / "org", {"curl": ORG_DENY_CURL, "shred": ORG_HALT_SHRED},
                   rulebook="builtins:\n  protected_paths: {paths: ['/etc/']}\n")
    return build.build(str(d), "r1")


def config(key: str | bytes, alg: str, keyid: str = "k", scope: str | None = None) -> signing.VerificationConfig:
    return signing.VerificationConfig({keyid: signing.VerificationKey(key, alg)}, keyid, scope)


def test_build_lays_out_an_opa_bundle(built: opa_bundle.Bundle) -> None:
    files = built.files
    assert set(files) == {".manifest", "policies/opencode/curl.rego", "policies/opencode/shred.rego",
                          "cupcake/rulebook/data.yaml", "policies/opencode/policy.wasm"}
    m = built.manifest
    assert (m.revision, m.roots, m.rego_version) == ("r1", ["cupcake"], 1)
    assert m.wasm and all(w["module"] == "/policies/opencode/policy.wasm" for w in m.wasm)
    assert files["policies/opencode/policy.wasm"][:4] == b"\0asm"
    # a tarball with OPA's leading-slash names that reads back to the same files
    blob = opa_bundle.write(files)
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        assert sorted(tar.getnames()) == sorted("/" + n for n in files)
    assert opa_bundle.read(blob).files == files


def test_build_is_deterministic(built: opa_bundle.Bundle, tmp_path: Path) -> None:
    d = org_config(tmp_path / "org", {"curl": ORG_DENY_CURL, "shred": ORG_HALT_SHRED},
                   rulebook="builtins:\n  protected_paths: {paths: ['/etc/']}\n")
    again = build.build(str(d), "r1")
    assert opa_bundle.write(again.files) == opa_bundle.write(built.files)


@pytest.mark.parametrize("alg", ["RS256", "ES256", "HS256"])
def test_sign_then_verify_each_algorithm(built: opa_bundle.Bundle, tmp_path: Path, alg: str) -> None:
    if alg == "HS256":
        priv: str = HMAC
        pub: str = HMAC
    else:
        kp, kv = (rsa_pair if alg == "RS256" else ec_pair)(tmp_path)
        priv, pub = kp.read_text(), kv.read_text()
    sig = signing.sign(built, priv, alg, "k", {"scope": "write", "iss": "ci"})
    signed = opa_bundle.Bundle({**built.files, opa_bundle.SIGNATURES: sig})
    payload = signing.verify(signed, config(pub, alg, scope="write"))
    assert payload is not None and payload["scope"] == "write"
    assert sorted(f["name"] for f in payload["files"]) == sorted(built.files)
    assert jwt.get_unverified_header(json.loads(sig)["signatures"][0])["kid"] == "k"
    # round trip through the archive keeps the signature valid
    assert signing.verify(opa_bundle.read(opa_bundle.write(signed.files)), config(pub, alg, scope="write"))


def _signed(built: opa_bundle.Bundle, claims: dict[str, object] | None = None) -> opa_bundle.Bundle:
    return opa_bundle.Bundle({**built.files, opa_bundle.SIGNATURES: signing.sign(built, HMAC, "HS256", "k", claims)})


def test_tampered_file_fails(built: opa_bundle.Bundle) -> None:
    signed = _signed(built)
    files = dict(signed.files)
    files["policies/opencode/curl.rego"] = files["policies/opencode/curl.rego"].replace(b"curl", b"cur1")
    with pytest.raises(signing.SignatureError, match="curl.rego: its hash does not match"):
        signing.verify(opa_bundle.Bundle(files), config(HMAC, "HS256"))


def test_added_or_removed_file_fails(built: opa_bundle.Bundle) -> None:
    signed = _signed(built)
    extra = opa_bundle.Bundle({**signed.files, "policies/opencode/allow_all.rego": b"package x\n"})
    with pytest.raises(signing.SignatureError, match="not signed: policies/opencode/allow_all.rego"):
        signing.verify(extra, config(HMAC, "HS256"))
    fewer = dict(signed.files)
    del fewer["policies/opencode/shred.rego"]
    with pytest.raises(signing.SignatureError, match="signed but absent: policies/opencode/shred.rego"):
        signing.verify(opa_bundle.Bundle(fewer), config(HMAC, "HS256"))


def test_wrong_key_and_algorithm_confusion_fail(built: opa_bundle.Bundle, tmp_path: Path) -> None:
    signed = _signed(built)
    with pytest.raises(signing.SignatureError, match="does not verify"):
        signing.verify(signed, config("another-secret-of-at-least-32-bytes!!", "HS256"))
    priv, pub = rsa_pair(tmp_path)
    rs = opa_bundle.Bundle({**built.files, opa_bundle.SIGNATURES: signing.sign(built, priv.read_text(), "RS256")})
    _, other_pub = rsa_pair(tmp_path, "other")
    with pytest.raises(signing.SignatureError, match="does not verify"):
        signing.verify(rs, config(other_pub.read_text(), "RS256"))
    # an HS256 token made with the public key as the secret must not pass as RS256
    forged = jwt.encode({"files": signing.file_list(built)}, "x" * 40, algorithm="HS256")
    fake = opa_bundle.Bundle({**built.files, opa_bundle.SIGNATURES: json.dumps({"signatures": [forged]}).encode()})
    with pytest.raises(signing.SignatureError):
        signing.verify(fake, config(pub.read_text(), "RS256"))


def test_scope_expiry_and_unknown_key_id(built: opa_bundle.Bundle) -> None:
    with pytest.raises(signing.SignatureError, match="scope"):
        signing.verify(_signed(built, {"scope": "read"}), config(HMAC, "HS256", scope="write"))
    expired = _signed(built, {"exp": int(time.time()) - 10})
    with pytest.raises(signing.SignatureError, match="expired"):
        signing.verify(expired, config(HMAC, "HS256"))
    cfg = signing.VerificationConfig({"other": signing.VerificationKey(HMAC, "HS256")})
    with pytest.raises(signing.SignatureError, match="no verification key with id 'k'"):
        signing.verify(_signed(built), cfg)


def test_presence_of_the_signature_block_decides(built: opa_bundle.Bundle) -> None:
    assert signing.verify(built, None) is None  # unsigned, nothing configured: not verified
    with pytest.raises(signing.SignatureError, match="not signed"):
        signing.verify(built, config(HMAC, "HS256"))
    with pytest.raises(signing.SignatureError, match="no verification key is configured"):
        signing.verify(_signed(built), None)  # a key id in the JWT alone never makes it trusted


OPA_DOC_TOKEN = (  # the .signatures.json example of OPA's bundle documentation (HS256, secret "secret")
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJmaWxlcyI6W3sibmFtZSI6Ii5tYW5pZmVzdCIsImhhc2giOiJjMjEzMTU0NGM3MTZhMjVh"
    "NWUzMWY1MDQzMDBmNTI0MGU4MjM1Y2FkYjlhNTdmMGJkMWI2ZjRiZDc0YjI2NjEyIiwiYWxnb3JpdGhtIjoiU0hBMjU2In0seyJuYW1lIjoi"
    "cm9sZXMvYmluZGluZ3MvZGF0YS5qc29uIiwiaGFzaCI6IjQyY2ZlNjc2OGI1N2JiNWY3NTAzYzE2NWMyOGRkMDdhYzViODEzNTU0ZWJjODUw"
    "ZjJjYzM1ODQzZTcxMzdiMWQifV0sImlhdCI6MTU5MjI0ODAyNywiaXNzIjoiSldUU2VydmljZSIsImtleWlkIjoibXlQdWJsaWNLZXkiLCJz"
    "Y29wZSI6IndyaXRlIn0.ZjtUgXC6USwmhv4XP9gFH6MzZwpZrGpAL_2sTK1P-mg")


@pytest.mark.filterwarnings("ignore:The HMAC key is")  # OPA's example secret is short
def test_opa_documentation_example_is_read_and_checked(tmp_path: Path) -> None:
    """OPA's documented token: its signature verifies (legacy `keyid` claim, `SHA256` spelling,
    a file without algorithm); the files it lists are checked against the bundle's."""
    sigs = json.dumps({"signatures": [OPA_DOC_TOKEN]}).encode()
    b = opa_bundle.Bundle({".manifest": b'{"revision": "x"}', "roots/bindings/data.json": b"{}",
                           opa_bundle.SIGNATURES: sigs})
    cfg = signing.VerificationConfig({"myPublicKey": signing.VerificationKey("secret", "HS256")}, scope="write")
    with pytest.raises(signing.SignatureError, match="does not match the bundle"):  # signature fine, files differ
        signing.verify(b, cfg)
    with pytest.raises(signing.SignatureError, match="does not verify"):
        signing.verify(b, signing.VerificationConfig({"myPublicKey": signing.VerificationKey("wrong", "HS256")}))


def test_structured_files_hash_canonically() -> None:
    a = hashing.digest("x/data.json", b'{"b": 1, "a": [1, 2.50, "<&>"]}')
    b = hashing.digest("x/data.json", b'{\n  "a": [1, 2.50, "<&>"],\n  "b": 1\n}\n')
    assert a == b
    assert hashing.canonical_json({"b": 1, "a": ["<&>"]}) == '{"a":["\\u003c\\u0026\\u003e"],"b":1}'
    assert hashing.digest("p.rego", b"package a\n") != hashing.digest("p.rego", b"package a \n")
    with pytest.raises(hashing.HashError, match="refused"):
        hashing.digest("p.rego", b"", "MD5")
    assert hashing.digest("p.rego", b"x", "SHA256") == hashing.digest("p.rego", b"x", "SHA-256")


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=8), st.booleans()),
                       max_size=6))
def test_canonical_json_ignores_key_order_and_spacing(value: dict[str, object]) -> None:
    forward = json.dumps(value).encode()
    backward = json.dumps(dict(reversed(list(value.items()))), indent=3).encode()
    assert hashing.digest("d/data.json", forward) == hashing.digest("d/data.json", backward)


def _tar(entries: list[tarfile.TarInfo], data: bytes = b"x") -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for info in entries:
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return raw.getvalue()


def test_archive_safety_checks() -> None:
    ok = tarfile.TarInfo("/a.rego")
    ok.size = 1
    assert opa_bundle.read(_tar([ok])).files == {"a.rego": b"x"}
    dotdot = tarfile.TarInfo("../../etc/x.rego")
    dotdot.size = 1
    with pytest.raises(opa_bundle.BundleFormatError, match="not a plain relative path"):
        opa_bundle.read(_tar([dotdot]))
    link = tarfile.TarInfo("l.rego")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    with pytest.raises(opa_bundle.BundleFormatError, match="not a regular file"):
        opa_bundle.read(_tar([link]))
    blob = opa_bundle.write({"a.rego": b"x" * 5000, ".manifest": b"{}"})
    with pytest.raises(opa_bundle.BundleFormatError, match="truncated or corrupt"):
        opa_bundle.read(blob[: len(blob) // 2])
    with pytest.raises(opa_bundle.BundleFormatError, match="rego_version"):
        opa_bundle.Manifest.parse(b'{"rego_version": 7}')


def test_rego_version_per_file() -> None:
    m = opa_bundle.Manifest({"rego_version": 1, "file_rego_versions": {"/legacy/**": 0, "/a/b.rego": 0}})
    assert (m.rego_version_of("legacy/x.rego"), m.rego_version_of("a/b.rego"), m.rego_version_of("c.rego")) == \
        (0, 0, 1)


def _independent_hash(name: str, data: bytes) -> str:
    """OPA's documented digest rule, written from its documentation alone (not via hashing.py)."""
    import hashlib

    if name.endswith(".json") or name.endswith(".manifest"):
        data = json.dumps(json.loads(data), sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()


def test_interop_with_a_bundle_laid_out_and_signed_as_opa_documents_it() -> None:
    """OPA's documented example bundle (.manifest with roots, roles/bindings/data.json, an authz
    policy), archived with `opa build`'s leading-slash names and signed by an independent JWT over
    the documented `files` claim: read and verified. The reverse: our signature checked independently."""
    files = {".manifest": b'{\n  "revision": "7864d60dd78d748dbce54b569e939f5b0dc07486",\n  "roots": ["roles", '
                          b'"http/example/authz"]\n}\n',
             "roles/bindings/data.json": b'{"bindings": [{"user": "alice", "role": "admin"}]}',
             "http/example/authz/authz.rego": b"package http.example.authz\n\nallow if input.user == \"alice\"\n"}
    claims = {"files": [{"name": n, "hash": _independent_hash(n, b), "algorithm": "SHA-256"} for n, b in files.items()],
              "scope": "write", "iss": "JWTService"}
    token = jwt.encode(claims, HMAC, algorithm="HS256", headers={"kid": "myKey"})
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for name, data in {**files, ".signatures.json": json.dumps({"signatures": [token]}).encode()}.items():
            info = tarfile.TarInfo("/" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    b = opa_bundle.read(raw.getvalue())
    assert b.manifest.revision.startswith("7864d60") and b.manifest.roots == ["roles", "http/example/authz"]
    cfg = signing.VerificationConfig({"myKey": signing.VerificationKey(HMAC, "HS256")}, scope="write")
    payload = signing.verify(b, cfg)
    assert payload is not None and payload["kid"] == "myKey"
    # reverse: a bundle we sign, checked with PyJWT and the documented digest rule only
    ours_files = {**files, "policies/opencode/x.rego": b"package cupcake.policies.x\n"}
    sig = signing.sign(opa_bundle.Bundle(ours_files), HMAC, "HS256", "myKey")
    decoded = jwt.decode(json.loads(sig)["signatures"][0], HMAC, algorithms=["HS256"])
    assert {f["name"]: f["hash"] for f in decoded["files"]} == {n: _independent_hash(n, d) for n, d in ours_files.items()}


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2048), st.integers(min_value=0, max_value=5000))
def test_any_bytes_are_a_bundle_or_a_format_error(noise: bytes, cut: int) -> None:
    """Garbage, and a real archive cut anywhere or with noise spliced in, never escape as anything
    but BundleFormatError (activation turns that into a refusal)."""
    real = opa_bundle.write({".manifest": b'{"revision": "1"}', "policies/opencode/a.rego": b"package a\n" * 50})
    for blob in (noise, real[:cut], real[:cut] + noise + real[cut:]):
        try:
            b = opa_bundle.read(blob)
        except opa_bundle.BundleFormatError:
            continue
        assert all(not n.startswith("/") and ".." not in n.split("/") for n in b.files)
