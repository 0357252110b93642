"""JWS primitives on `cryptography`: base64url, JWK/PEM key loading, sign and verify per alg."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_B64STD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


class JoseError(Exception):
    pass


def b64url_decode(s: str) -> bytes:
    """Go's base64.RawURLEncoding (trailing '=' padding tolerated), with Go's error text."""
    body = s.rstrip("=")
    for i, c in enumerate(body):
        if c not in _B64URL:
            raise JoseError(f"illegal base64 data at input byte {i}")
    if len(body) % 4 == 1:
        raise JoseError(f"illegal base64 data at input byte {len(body) - 1}")
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def b64url_encode(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


def b64std_decode(s: str) -> bytes:
    """Go's base64.StdEncoding.DecodeString with its error text."""
    clean = s.replace("\r", "").replace("\n", "")
    body = clean.rstrip("=")
    for i, c in enumerate(body):
        if c not in _B64STD:
            raise JoseError(f"illegal base64 data at input byte {i}")
    if len(clean) % 4:
        raise JoseError(f"illegal base64 data at input byte {len(clean) - len(clean) % 4}")
    try:
        return base64.b64decode(clean, validate=True)
    except binascii.Error as exc:
        raise JoseError(f"illegal base64 data: {exc}") from None


def _int(jwk: dict[str, Any], name: str) -> int:
    v = jwk.get(name)
    if not isinstance(v, str):
        raise JoseError(f'failed to parse JWK: required field "{name}" is missing')
    return int.from_bytes(b64url_decode(v), "big")


_CURVES: dict[str, type[ec.EllipticCurve]] = {
    "P-256": ec.SECP256R1,
    "P-384": ec.SECP384R1,
    "P-521": ec.SECP521R1,
}


def jwk_to_key(jwk: dict[str, Any]) -> Any:
    """A JWK (dict) → bytes (oct) or a cryptography key object (private when 'd' is present)."""
    kty = jwk.get("kty")
    if kty == "oct":
        k = jwk.get("k")
        if not isinstance(k, str):
            raise JoseError('failed to parse JWK: required field "k" is missing')
        return b64url_decode(k)
    if kty == "RSA":
        pub = rsa.RSAPublicNumbers(_int(jwk, "e"), _int(jwk, "n"))
        if "d" not in jwk:
            return pub.public_key()
        d = _int(jwk, "d")
        if "p" in jwk and "q" in jwk:
            p, q = _int(jwk, "p"), _int(jwk, "q")
        else:
            p, q = rsa.rsa_recover_prime_factors(pub.n, pub.e, d)
        dp = _int(jwk, "dp") if "dp" in jwk else rsa.rsa_crt_dmp1(d, p)
        dq = _int(jwk, "dq") if "dq" in jwk else rsa.rsa_crt_dmq1(d, q)
        qi = _int(jwk, "qi") if "qi" in jwk else rsa.rsa_crt_iqmp(p, q)
        return rsa.RSAPrivateNumbers(p, q, d, dp, dq, qi, pub).private_key()
    if kty == "EC":
        crv = _CURVES.get(str(jwk.get("crv")))
        if crv is None:
            raise JoseError(f"failed to parse JWK: unsupported curve {jwk.get('crv')}")
        pub_ec = ec.EllipticCurvePublicNumbers(_int(jwk, "x"), _int(jwk, "y"), crv())
        if "d" in jwk:
            return ec.EllipticCurvePrivateNumbers(_int(jwk, "d"), pub_ec).private_key()
        return pub_ec.public_key()
    if kty == "OKP":
        if jwk.get("crv") != "Ed25519":
            raise JoseError(f"failed to parse JWK: unsupported curve {jwk.get('crv')}")
        if "d" in jwk:
            return ed25519.Ed25519PrivateKey.from_private_bytes(b64url_decode(jwk["d"]))
        return ed25519.Ed25519PublicKey.from_public_bytes(b64url_decode(str(jwk.get("x", ""))))
    raise JoseError(f"failed to parse JWK: invalid key type {kty!r}")


def _pem_block(text: str) -> tuple[str, bytes, str]:
    """(type, DER, rest) of the first PEM block."""
    begin = text.find("-----BEGIN ")
    if begin == -1:
        raise JoseError("failed to find a PEM block")
    head_end = text.find("-----", begin + 11)
    kind = text[begin + 11 : head_end]
    end_marker = f"-----END {kind}-----"
    end = text.find(end_marker, head_end)
    if end == -1:
        raise JoseError("failed to find the end of a PEM block")
    body = text[head_end + 5 : end]
    try:
        der = base64.b64decode("".join(body.split()), validate=True)
    except binascii.Error:
        raise JoseError(f"failed to decode a PEM {kind.lower()} block") from None
    rest = text[end + len(end_marker) :]
    return kind, der, rest


def public_keys(cert_or_jwk: str) -> list[tuple[str | None, Any]]:
    """Keys (with their JWK kid) from a PEM certificate / public key, a JWK or a JWKS."""
    if cert_or_jwk.startswith("-----BEGIN"):
        kind, der, rest = _pem_block(cert_or_jwk)
        if rest.strip():
            raise JoseError("extra data after a PEM certificate block")
        if kind == "CERTIFICATE":
            try:
                return [(None, x509.load_der_x509_certificate(der).public_key())]
            except ValueError:
                raise JoseError("failed to parse a PEM certificate") from None
        if kind == "PUBLIC KEY":
            try:
                return [(None, serialization.load_der_public_key(der))]
            except ValueError:
                raise JoseError("failed to parse a PEM public key") from None
        if kind == "RSA PUBLIC KEY":
            try:
                return [(None, serialization.load_der_public_key(der))]
            except ValueError:
                raise JoseError("failed to parse a PEM public key") from None
        raise JoseError(f"failed to extract a Key from the PEM certificate ({kind})")
    try:
        doc = json.loads(cert_or_jwk)
    except ValueError:
        raise JoseError("failed to parse a JWK key (set)") from None
    if not isinstance(doc, dict):
        raise JoseError("failed to parse a JWK key (set)")
    jwks = doc["keys"] if isinstance(doc.get("keys"), list) else [doc]
    out: list[tuple[str | None, Any]] = []
    for jwk in jwks:
        if isinstance(jwk, dict):
            out.append((jwk.get("kid") if isinstance(jwk.get("kid"), str) else None, jwk_to_key(jwk)))
    return out


# ----------------------------------------------------------------- algorithms

_HASH: dict[str, Callable[[], hashes.HashAlgorithm]] = {"256": hashes.SHA256, "384": hashes.SHA384, "512": hashes.SHA512}
_HASHLIB = {"256": hashlib.sha256, "384": hashlib.sha384, "512": hashlib.sha512}
_EC_SIZE = {"256": 32, "384": 48, "512": 66}
ALGS = frozenset(f"{f}{n}" for f in ("HS", "RS", "PS", "ES") for n in ("256", "384", "512")) | {"EdDSA"}


def verify(alg: str, key: Any, signing_input: bytes, sig: bytes) -> bool:
    fam, bits = alg[:2], alg[2:]
    try:
        if fam == "HS":
            k = key if isinstance(key, bytes) else str(key).encode()
            return hmac.compare_digest(hmac.new(k, signing_input, _HASHLIB[bits]).digest(), sig)
        if fam in ("RS", "PS") and isinstance(key, rsa.RSAPublicKey):
            pad: padding.AsymmetricPadding = (
                padding.PKCS1v15()
                if fam == "RS"
                else padding.PSS(mgf=padding.MGF1(_HASH[bits]()), salt_length=padding.PSS.AUTO)
            )
            key.verify(sig, signing_input, pad, _HASH[bits]())
            return True
        if fam == "ES" and isinstance(key, ec.EllipticCurvePublicKey):
            size = _EC_SIZE[bits]
            if len(sig) != 2 * size or key.curve.key_size != {"256": 256, "384": 384, "512": 521}[bits]:
                return False
            r, s = int.from_bytes(sig[:size], "big"), int.from_bytes(sig[size:], "big")
            key.verify(encode_dss_signature(r, s), signing_input, ec.ECDSA(_HASH[bits]()))
            return True
        if alg == "EdDSA" and isinstance(key, ed25519.Ed25519PublicKey):
            key.verify(sig, signing_input)
            return True
    except (InvalidSignature, ValueError):
        return False
    return False


def sign(alg: str, key: Any, signing_input: bytes) -> bytes:
    fam, bits = alg[:2], alg[2:]
    if fam == "HS":
        if not isinstance(key, bytes):
            raise JoseError(f"{alg} requires a symmetric (oct) key")
        return hmac.new(key, signing_input, _HASHLIB[bits]).digest()
    if fam in ("RS", "PS"):
        if not isinstance(key, rsa.RSAPrivateKey):
            raise JoseError(f"{alg} requires an RSA private key")
        pad: padding.AsymmetricPadding = (
            padding.PKCS1v15()
            if fam == "RS"
            else padding.PSS(mgf=padding.MGF1(_HASH[bits]()), salt_length=padding.PSS.DIGEST_LENGTH)
        )
        return key.sign(signing_input, pad, _HASH[bits]())
    if fam == "ES":
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise JoseError(f"{alg} requires an EC private key")
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(_HASH[bits]())))
        size = _EC_SIZE[bits]
        return r.to_bytes(size, "big") + s.to_bytes(size, "big")
    if alg == "EdDSA":
        if not isinstance(key, ed25519.Ed25519PrivateKey):
            raise JoseError("EdDSA requires an Ed25519 private key")
        return key.sign(signing_input)
    raise JoseError(f"unknown JWS algorithm: {alg}")
