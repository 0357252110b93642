"""crypto hashes/HMAC, io.jwt.* (keys generated per test run), crypto.x509.*, providers.aws.sign_req."""

from __future__ import annotations

import base64
import datetime as dt
import json

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

from cupcake_py.host.builtins import BuiltinContext
from cupcake_py.host.builtins._jose import b64url_encode
from cupcake_py.host.builtins.aws_sign import signing_key
from cupcake_py.host.builtins.x509 import private_jwk
from tests.host_builtins.calls import call, fails


def test_hashes_and_hmac() -> None:
    assert call("crypto.md5", "abc") == "900150983cd24fb0d6963f7d28e17f72"
    assert call("crypto.sha1", "abc") == "a9993e364706816aba3e25717850c26c9cd0d89d"
    assert call("crypto.sha256", "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    # RFC 4231 test case 2
    assert call("crypto.hmac.sha256", "what do ya want for nothing?", "Jefe") == (
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )
    assert call("crypto.hmac.equal", "ab", "ab") is True and call("crypto.hmac.equal", "ab", "ac") is False


_RSA = rsa.generate_private_key(public_exponent=65537, key_size=2048)
_EC = ec.generate_private_key(ec.SECP256R1())
_ED = ed25519.Ed25519PrivateKey.generate()


def _pub_pem(key: object) -> str:
    return (
        key.public_key()
        .public_bytes(  # type: ignore[attr-defined]
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        .decode()
    )


@pytest.mark.parametrize(
    ("alg", "key"),
    [("RS256", _RSA), ("RS512", _RSA), ("PS384", _RSA), ("ES256", _EC), ("EdDSA", _ED)],
)
def test_sign_then_verify(alg: str, key: object) -> None:
    jwk = private_jwk(key)
    token = call("io.jwt.encode_sign", {"alg": alg, "typ": "JWT"}, {"iss": "me", "exp": 4102444800}, jwk)
    verifier = "io.jwt.verify_eddsa" if alg == "EdDSA" else f"io.jwt.verify_{alg.lower()}"
    pem = _pub_pem(key)
    assert call(verifier, token, pem) is True
    assert call(verifier, token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"), pem) is False
    pub_jwk = {k: v for k, v in jwk.items() if k not in ("d", "p", "q", "dp", "dq", "qi")}
    assert call(verifier, token, json.dumps({"keys": [pub_jwk]})) is True
    ok, header, payload = call("io.jwt.decode_verify", token, {"cert": pem, "iss": "me", "time": 10**18})
    assert ok is True and header["alg"] == alg and payload["iss"] == "me"


def test_hs256_known_vector_and_decode() -> None:
    # RFC 7515 appendix A.1 key; header/payload serialised with sorted keys like Go's json.Marshal
    k = {
        "kty": "oct",
        "k": "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow",
    }
    header = '{"typ":"JWT",\r\n "alg":"HS256"}'
    payload = '{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}'
    token = call("io.jwt.encode_sign_raw", header, payload, json.dumps(k))
    assert token.endswith(".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")  # RFC 7515 A.1 signature
    secret = base64.urlsafe_b64decode(k["k"] + "==").decode("latin-1")
    hdr, pl, sig = call("io.jwt.decode", token)
    assert hdr == {"typ": "JWT", "alg": "HS256"} and pl["iss"] == "joe" and len(sig) == 64
    assert call("io.jwt.verify_hs256", token, "wrong") is False
    assert isinstance(secret, str)


def test_decode_verify_claims() -> None:
    def tok(payload: dict[str, object]) -> str:
        return call("io.jwt.encode_sign", {"alg": "HS256"}, payload, {"kty": "oct", "k": b64url_encode(b"s")})

    c = {"secret": "s", "time": 2000 * 10**9}
    assert call("io.jwt.decode_verify", tok({"exp": 3000}), c)[0] is True
    assert call("io.jwt.decode_verify", tok({"exp": 1000}), c) == [False, {}, {}]
    assert call("io.jwt.decode_verify", tok({"nbf": 2000}), c)[0] is True  # nbf == time is valid
    assert call("io.jwt.decode_verify", tok({"aud": ["a", "b"]}), {**c, "aud": "b"})[0] is True
    assert call("io.jwt.decode_verify", tok({"aud": "a"}), c)[0] is False  # aud without constraint
    assert call("io.jwt.decode_verify", tok({}), {**c, "aud": "a"})[0] is False
    assert call("io.jwt.decode_verify", tok({}), {**c, "alg": "RS256"})[0] is False
    assert call("io.jwt.decode_verify", tok({"iss": "x"}), {**c, "iss": "y"})[0] is False
    # a verified token whose exp/nbf is not a number is an error (undefined), not "invalid"
    fails(
        "io.jwt.decode_verify",
        tok({"nbf": "soon"}),
        c,
        match="io.jwt.decode_verify: nbf value must be a number",
    )
    fails("io.jwt.decode_verify", tok({"exp": True}), c, match="exp value must be a number")
    assert call("io.jwt.decode_verify", tok({"exp": "x"}), {"secret": "wrong"}) == [False, {}, {}]
    fails(
        "io.jwt.decode_verify",
        tok({}),
        {"secret": "s", "bogus": 1},
        match="unknown token validation constraint",
    )


@pytest.mark.parametrize(
    ("token", "msg"),
    [("abc", "no period separators"), ("a.b", "must have 3 sections, found 2"),
     ("eyJhbGciOiJIUzI1NiJ9.e(.x", "JWT payload had invalid encoding: illegal base64 data at input byte 1"),
     ("eyJhbGciOiJIUzI1NiIsImVuYyI6IngifQ.e30.", "JWE object")],
)  # fmt: skip
def test_decode_errors(token: str, msg: str) -> None:
    fails("io.jwt.decode", token, match=msg)


def test_encode_sign_raw_errors() -> None:
    oct_key = json.dumps({"kty": "oct", "k": "AAAA"})
    fails("io.jwt.encode_sign_raw", "{}", "{}", oct_key, match='header "alg" not found')
    fails("io.jwt.encode_sign_raw", '{"alg":"dummy"}', "{}", oct_key, match="unknown JWS algorithm: dummy")
    fails("io.jwt.encode_sign_raw", '{"alg":"HS256","typ":"JWT"}', "e", oct_key, match="payload is not JSON")


def _cert(
    subject: str, issuer_key: object, key: object, issuer: str, ca: bool, san: list[str] | None = None
) -> x509.Certificate:
    now = dt.datetime.now(dt.UTC)
    b = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
        .public_key(key.public_key())  # type: ignore[attr-defined]
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if san:
        b = b.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in san]), critical=False)
    return b.sign(issuer_key, hashes.SHA256())  # type: ignore[arg-type]


def _pem(*certs: x509.Certificate) -> str:
    return "".join(c.public_bytes(serialization.Encoding.PEM).decode() for c in certs)


def test_x509_chain() -> None:
    root_k, mid_k, leaf_k = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    root = _cert("Root", root_k, root_k, "Root", True)
    mid = _cert("Mid", root_k, mid_k, "Root", True)
    leaf = _cert("leaf.test", mid_k, leaf_k, "Mid", False, ["leaf.test"])
    parsed = call("crypto.x509.parse_certificates", _pem(leaf, mid))
    assert [c["Subject"]["CommonName"] for c in parsed] == ["leaf.test", "Mid"]
    assert parsed[0]["DNSNames"] == ["leaf.test"] and parsed[0]["PublicKeyAlgorithm"] == 3
    der_b64 = base64.b64encode(leaf.public_bytes(serialization.Encoding.DER) * 2).decode()
    assert len(call("crypto.x509.parse_certificates", der_b64)) == 2
    ok, chain = call("crypto.x509.parse_and_verify_certificates", _pem(root, mid, leaf))
    assert ok is True and [c["Subject"]["CommonName"] for c in chain] == ["leaf.test", "Mid", "Root"]
    assert call("crypto.x509.parse_and_verify_certificates", _pem(root, leaf)) == [False, []]
    opts = {"DNSName": "other.test"}
    assert (
        call("crypto.x509.parse_and_verify_certificates_with_options", _pem(root, mid, leaf), opts)[0]
        is False
    )
    fails("crypto.x509.parse_certificates", "YmFkc3RyaW5n", match="x509: malformed certificate")
    fails("crypto.x509.parse_certificates", "foobar", match="illegal base64")


def test_private_keys_and_keypair() -> None:
    pem = _RSA.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    jwk = call("crypto.x509.parse_rsa_private_key", pem)
    assert (
        jwk["kty"] == "RSA"
        and jwk["e"] == "AQAB"
        and set(jwk) == {"kty", "n", "e", "d", "p", "q", "dp", "dq", "qi"}
    )
    assert len(call("crypto.parse_private_keys", pem + _pub_pem(_EC))) == 1
    assert call("crypto.parse_private_keys", "") is None
    cert = _cert("kp", _RSA, _RSA, "kp", False)
    kp = call("crypto.x509.parse_keypair", _pem(cert), base64.b64encode(pem.encode()).decode())
    assert kp["Certificate"] == [base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()]
    other = _EC.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    fails("crypto.x509.parse_keypair", _pem(cert), other.decode(), match="private key does not match")


def test_aws_sigv4() -> None:
    # AWS documentation example of the SigV4 signing-key derivation.
    key = signing_key("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam")
    assert key.hex() == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
    cfg = {
        "aws_access_key": "AK",
        "aws_secret_access_key": "SK",
        "aws_service": "s3",
        "aws_region": "us-east-1",
    }
    req = {"method": "get", "url": "https://example.com/a b?x=1", "headers": {"Foo": "bar"}}
    out = call("providers.aws.sign_req", req, {**cfg, "aws_session_token": "T"}, 1451311705000000000)
    h = out["headers"]
    assert (
        h["x-amz-date"] == "20151228T140825Z"
        and h["host"] == "example.com"
        and h["x-amz-security-token"] == "T"
    )
    assert h["Authorization"].startswith(
        "AWS4-HMAC-SHA256 Credential=AK/20151228/us-east-1/s3/aws4_request,"
        "SignedHeaders=foo;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,Signature="
    )
    unsigned = call("providers.aws.sign_req", req, {**cfg, "disable_payload_signing": True}, 0)
    assert unsigned["headers"]["x-amz-content-sha256"] == "UNSIGNED-PAYLOAD"
    fails(
        "providers.aws.sign_req",
        {},
        cfg,
        0,
        match='missing required request parameters(s): {"method", "url"}',
    )


def test_http_send_validation_and_opt_in() -> None:
    fails("http.send", {"method": "get"}, match='missing required request parameters(s): {"url"}')
    fails(
        "http.send", {"method": "get", "url": "x", "bad": 1}, match='invalid request parameters(s): {"bad"}'
    )
    fails("http.send", {"method": "get", "url": "http://127.0.0.1:9"}, match="network access is disabled")
    ctx = BuiltinContext(allow_net=True, net_timeout_s=0.5)
    resp = call("http.send", {"method": "get", "url": "http://127.0.0.1:9", "raise_error": False}, ctx=ctx)
    assert resp["status_code"] == 0 and resp["error"]["code"] == "eval_http_send_network_error"
