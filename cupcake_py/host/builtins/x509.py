"""crypto.x509.* and crypto.parse_private_keys (objects shaped like Go's x509 structs as JSON)."""

from __future__ import annotations

import base64
import datetime as _dt
import warnings
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_obj, want_str
from cupcake_py.host.builtins._jose import JoseError, b64std_decode, b64url_encode

# ------------------------------------------------------------------ input


def _pem_blocks(data: bytes) -> list[tuple[str, bytes]]:
    text = data.decode("latin-1")
    out: list[tuple[str, bytes]] = []
    pos = 0
    while True:
        b = text.find("-----BEGIN ", pos)
        if b == -1:
            return out
        he = text.find("-----", b + 11)
        kind = text[b + 11 : he]
        marker = f"-----END {kind}-----"
        e = text.find(marker, he)
        if he == -1 or e == -1:
            return out
        try:
            out.append((kind, base64.b64decode("".join(text[he + 5 : e].split()), validate=True)))
        except ValueError:
            pass
        pos = e + len(marker)


def _der_split(data: bytes) -> list[bytes]:
    """Concatenated DER SEQUENCEs → list (like x509.ParseCertificates)."""
    out, i = [], 0
    while i < len(data):
        if data[i] != 0x30 or i + 1 >= len(data):
            raise ValueError("x509: malformed certificate")
        n = data[i + 1]
        hdr = 2
        if n & 0x80:
            k = n & 0x7F
            if k == 0 or k > 4 or i + 2 + k > len(data):
                raise ValueError("x509: malformed certificate")
            n = int.from_bytes(data[i + 2 : i + 2 + k], "big")
            hdr += k
        end = i + hdr + n
        if end > len(data):
            raise ValueError("x509: malformed certificate")
        out.append(data[i:end])
        i = end
    return out


def _decode_input(fname: str, s: str) -> tuple[bytes, bool]:
    """(bytes, is_pem): PEM text as is, else base64 of PEM or DER."""
    if s.startswith("-----BEGIN"):
        return s.encode(), True
    try:
        raw = b64std_decode(s)
    except JoseError as exc:
        raise BuiltinError(f"{fname}: {exc}") from None
    return raw, raw.startswith(b"-----BEGIN")


def load_certs(fname: str, s: str) -> list[x509.Certificate]:
    raw, is_pem = _decode_input(fname, s)
    try:
        if is_pem:
            blocks = _pem_blocks(raw)
            other = next((kind for kind, _ in blocks if kind != "CERTIFICATE"), None)
            if other is not None:  # OPA: every block of the text must be a certificate
                raise BuiltinError(f"{fname}: PEM block type is '{other}', expected CERTIFICATE")
            ders = [der for _, der in blocks]
        else:
            ders = _der_split(raw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. non-positive serial numbers Go accepts
            return [x509.load_der_x509_certificate(d) for d in ders]
    except ValueError as exc:
        msg = str(exc) if str(exc).startswith("x509:") else "x509: malformed certificate"
        raise BuiltinError(f"{fname}: {msg}") from None


# ----------------------------------------------------------------- to JSON

_SIG_ALGS = {
    "md2WithRSAEncryption": 1, "md5WithRSAEncryption": 2, "sha1WithRSAEncryption": 3,
    "sha256WithRSAEncryption": 4, "sha384WithRSAEncryption": 5, "sha512WithRSAEncryption": 6,
    "dsa-with-sha1": 7, "dsa-with-sha256": 8, "ecdsa-with-SHA1": 9, "ecdsa-with-SHA256": 10,
    "ecdsa-with-SHA384": 11, "ecdsa-with-SHA512": 12, "ed25519": 16,
}  # fmt: skip
_EKU = {
    ExtendedKeyUsageOID.SERVER_AUTH: 1, ExtendedKeyUsageOID.CLIENT_AUTH: 2, ExtendedKeyUsageOID.CODE_SIGNING: 3,
    ExtendedKeyUsageOID.EMAIL_PROTECTION: 4, ExtendedKeyUsageOID.TIME_STAMPING: 8,
    ExtendedKeyUsageOID.OCSP_SIGNING: 9,
}  # fmt: skip
_EKU_NAMES = {
    "KeyUsageAny": None, "KeyUsageServerAuth": 1, "KeyUsageClientAuth": 2, "KeyUsageCodeSigning": 3,
    "KeyUsageEmailProtection": 4, "KeyUsageTimeStamping": 8, "KeyUsageOCSPSigning": 9,
}  # fmt: skip
_NAME_FIELDS = [
    ("Country", NameOID.COUNTRY_NAME), ("Organization", NameOID.ORGANIZATION_NAME),
    ("OrganizationalUnit", NameOID.ORGANIZATIONAL_UNIT_NAME), ("Locality", NameOID.LOCALITY_NAME),
    ("Province", NameOID.STATE_OR_PROVINCE_NAME), ("StreetAddress", NameOID.STREET_ADDRESS),
    ("PostalCode", NameOID.POSTAL_CODE),
]  # fmt: skip


def _b64(b: bytes | None) -> str | None:
    return base64.b64encode(b).decode() if b else None


def _oid(o: Any) -> list[int]:
    return [int(x) for x in o.dotted_string.split(".")]


def _name(n: x509.Name) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field, oid in _NAME_FIELDS:
        vals = [str(a.value) for a in n.get_attributes_for_oid(oid)]
        out[field] = vals or None
    sn = n.get_attributes_for_oid(NameOID.SERIAL_NUMBER)
    cn = n.get_attributes_for_oid(NameOID.COMMON_NAME)
    out["SerialNumber"] = str(sn[-1].value) if sn else ""
    out["CommonName"] = str(cn[-1].value) if cn else ""
    out["Names"] = [{"Type": _oid(a.oid), "Value": str(a.value)} for a in n] or None
    out["ExtraNames"] = None
    return out


def _public_key(k: Any) -> tuple[int, Any]:
    if isinstance(k, rsa.RSAPublicKey):
        nums = k.public_numbers()
        return 1, {"N": nums.n, "E": nums.e}
    if isinstance(k, ec.EllipticCurvePublicKey):
        nums_ec = k.public_numbers()
        return 3, {"Curve": {}, "X": nums_ec.x, "Y": nums_ec.y}
    if isinstance(k, ed25519.Ed25519PublicKey):
        return 4, _b64(k.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))
    return 0, None


def _url(u: str) -> dict[str, Any]:
    from urllib.parse import urlsplit

    p = urlsplit(u)
    return {
        "Scheme": p.scheme, "Opaque": "", "User": None, "Host": p.netloc, "Path": p.path, "RawPath": "",
        "OmitHost": False, "ForceQuery": False, "RawQuery": p.query, "Fragment": p.fragment, "RawFragment": "",
    }  # fmt: skip


def _ext(exts: x509.Extensions, cls: Any) -> Any:
    try:
        return exts.get_extension_for_class(cls).value
    except x509.ExtensionNotFound:
        return None


def _san(exts: x509.Extensions) -> dict[str, Any]:
    san = _ext(exts, x509.SubjectAlternativeName)
    dns = san.get_values_for_type(x509.DNSName) if san else []
    emails = san.get_values_for_type(x509.RFC822Name) if san else []
    ips = [str(i) for i in san.get_values_for_type(x509.IPAddress)] if san else []
    uris = san.get_values_for_type(x509.UniformResourceIdentifier) if san else []
    return {
        "DNSNames": dns or None,
        "EmailAddresses": emails or None,
        "IPAddresses": ips or None,
        "URIs": [_url(u) for u in uris] or None,
        "URIStrings": uris or None,
    }


def _sig_alg(c: Any) -> int:
    oid = c.signature_algorithm_oid
    name = getattr(oid, "_name", "")
    if oid.dotted_string == "1.2.840.113549.1.1.10":  # RSASSA-PSS
        h = c.signature_hash_algorithm
        return {"sha256": 13, "sha384": 14, "sha512": 15}.get(h.name if h else "", 0)
    return _SIG_ALGS.get(name, 0)


def _time(t: _dt.datetime) -> str:
    return t.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def cert_to_obj(c: x509.Certificate) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _cert_to_obj(c)


def _cert_to_obj(c: x509.Certificate) -> dict[str, Any]:
    exts = c.extensions
    pka, pk = _public_key(c.public_key())
    ku = _ext(exts, x509.KeyUsage)
    ku_bits = 0
    if ku is not None:
        names = ["digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
                 "key_agreement", "key_cert_sign", "crl_sign"]  # fmt: skip
        for i, n in enumerate(names):
            if getattr(ku, n):
                ku_bits |= 1 << i
        if ku.key_agreement:
            ku_bits |= (128 if ku.encipher_only else 0) | (256 if ku.decipher_only else 0)
    eku = _ext(exts, x509.ExtendedKeyUsage)
    bc = _ext(exts, x509.BasicConstraints)
    ski = _ext(exts, x509.SubjectKeyIdentifier)
    aki = _ext(exts, x509.AuthorityKeyIdentifier)
    aia = _ext(exts, x509.AuthorityInformationAccess)
    crl = _ext(exts, x509.CRLDistributionPoints)
    pol = _ext(exts, x509.CertificatePolicies)
    ocsp = (
        [d.access_location.value for d in aia if d.access_method.dotted_string == "1.3.6.1.5.5.7.48.1"]
        if aia
        else []
    )
    issuers = (
        [d.access_location.value for d in aia if d.access_method.dotted_string == "1.3.6.1.5.5.7.48.2"]
        if aia
        else []
    )
    crl_urls = (
        [n.value for dp in crl for n in (dp.full_name or []) if isinstance(n, x509.UniformResourceIdentifier)]
        if crl
        else []
    )
    tbs = c.tbs_certificate_bytes
    out: dict[str, Any] = {
        "Raw": _b64(c.public_bytes(serialization.Encoding.DER)),
        "RawTBSCertificate": _b64(tbs),
        "RawSubjectPublicKeyInfo": _b64(
            c.public_key().public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        ),
        "RawSubject": _b64(c.subject.public_bytes()),
        "RawIssuer": _b64(c.issuer.public_bytes()),
        "Signature": _b64(c.signature),
        "SignatureAlgorithm": _sig_alg(c),
        "PublicKeyAlgorithm": pka,
        "PublicKey": pk,
        "Version": c.version.value + 1,
        "SerialNumber": c.serial_number,
        "Issuer": _name(c.issuer),
        "Subject": _name(c.subject),
        "NotBefore": _time(c.not_valid_before_utc),
        "NotAfter": _time(c.not_valid_after_utc),
        "KeyUsage": ku_bits,
        "Extensions": [
            {"Id": _oid(e.oid), "Critical": e.critical, "Value": _b64(e.value.public_bytes())}
            if hasattr(e.value, "public_bytes")
            else {"Id": _oid(e.oid), "Critical": e.critical, "Value": None}
            for e in exts
        ]
        or None,
        "ExtraExtensions": None,
        "UnhandledCriticalExtensions": None,
        "ExtKeyUsage": [_EKU.get(u, 0) for u in eku if u in _EKU] or None if eku else None,
        "UnknownExtKeyUsage": [_oid(u) for u in eku if u not in _EKU] or None if eku else None,
        "BasicConstraintsValid": bc is not None,
        "IsCA": bool(bc and bc.ca),
        "MaxPathLen": (bc.path_length if bc.path_length is not None else -1) if bc else 0,
        "MaxPathLenZero": bool(bc and bc.path_length == 0),
        "SubjectKeyId": _b64(ski.digest) if ski else None,
        "AuthorityKeyId": _b64(aki.key_identifier) if aki and aki.key_identifier else None,
        "OCSPServer": ocsp or None,
        "IssuingCertificateURL": issuers or None,
        "PermittedDNSDomainsCritical": False,
        "PermittedDNSDomains": None,
        "ExcludedDNSDomains": None,
        "PermittedIPRanges": None,
        "ExcludedIPRanges": None,
        "PermittedEmailAddresses": None,
        "ExcludedEmailAddresses": None,
        "PermittedURIDomains": None,
        "ExcludedURIDomains": None,
        "CRLDistributionPoints": crl_urls or None,
        "PolicyIdentifiers": [_oid(p.policy_identifier) for p in pol] or None if pol else None,
        "Policies": [p.policy_identifier.dotted_string for p in pol] or None if pol else None,
    }
    out.update(_san(exts))
    return out


# --------------------------------------------------------------- builtins


@builtin("crypto.x509.parse_certificates")
def parse_certificates(ctx: BuiltinContext, certs: Any) -> list[Any]:
    f = "crypto.x509.parse_certificates"
    return [cert_to_obj(c) for c in load_certs(f, want_str(f, 1, certs))]


def _verify_chain(certs: list[x509.Certificate], now: _dt.datetime, dns: str | None, ekus: list[Any]) -> bool:
    """First cert is the trusted root, last the leaf, the rest intermediates (OPA's convention)."""
    if len(certs) < 2:
        return False
    root, leaf, inters = certs[0], certs[-1], certs[1:-1]
    pool = [*inters, root]
    chain = [leaf]
    while chain[-1] is not root:
        cur = chain[-1]
        nxt = None
        for cand in pool:
            if cand in chain and cand is not root:
                continue
            try:
                cur.verify_directly_issued_by(cand)
            except (ValueError, TypeError, Exception):  # noqa: BLE001 - any failure means "not the issuer"
                continue
            nxt = cand
            break
        if nxt is None or len(chain) > len(certs):
            return False
        bc = _ext(nxt.extensions, x509.BasicConstraints)
        if bc is not None and not bc.ca:
            return False
        chain.append(nxt)
    for c in chain:
        if not c.not_valid_before_utc <= now <= c.not_valid_after_utc:
            return False
    if dns is not None:
        san = _ext(leaf.extensions, x509.SubjectAlternativeName)
        names = san.get_values_for_type(x509.DNSName) if san else []
        if not any(_dns_match(p, dns) for p in names):
            return False
    wanted = [u for u in ekus if u is not None]
    if wanted and None not in ekus:
        eku = _ext(leaf.extensions, x509.ExtendedKeyUsage)
        have = {_EKU.get(u) for u in eku} if eku else set()
        if (
            eku is not None
            and ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE not in eku
            and not have & set(wanted)
        ):
            return False
    return True


def _dns_match(pattern: str, host: str) -> bool:
    p, h = pattern.lower().rstrip("."), host.lower().rstrip(".")
    if p.startswith("*."):
        return "." in h and h.split(".", 1)[1] == p[2:]
    return p == h


def _parse_and_verify(f: str, ctx: BuiltinContext, certs: Any, opts: dict[str, Any]) -> list[Any]:
    try:
        parsed = load_certs(f, want_str(f, 1, certs))
    except BuiltinError:
        return [False, []]
    now_ns = opts.get("CurrentTime", ctx.now_ns)
    now = _dt.datetime.fromtimestamp(int(now_ns) / 1e9, _dt.UTC)
    ekus = [_EKU_NAMES.get(str(k), -1) for k in opts.get("KeyUsages", [])]
    ok = _verify_chain(parsed, now, opts.get("DNSName"), ekus)
    if not ok:
        return [False, []]
    return [True, [cert_to_obj(c) for c in reversed(parsed)]]


@builtin("crypto.x509.parse_and_verify_certificates")
def parse_and_verify_certificates(ctx: BuiltinContext, certs: Any) -> list[Any]:
    return _parse_and_verify("crypto.x509.parse_and_verify_certificates", ctx, certs, {})


@builtin("crypto.x509.parse_and_verify_certificates_with_options")
def parse_and_verify_with_options(ctx: BuiltinContext, certs: Any, options: Any) -> list[Any]:
    f = "crypto.x509.parse_and_verify_certificates_with_options"
    opts = dict(want_obj(f, 2, options))
    allowed = {"DNSName", "CurrentTime", "MaxConstraintComparisons", "KeyUsages"}
    bad = set(opts) - allowed
    if bad:
        raise BuiltinError(f"{f}: invalid option: {sorted(map(str, bad))[0]}")
    return _parse_and_verify(f, ctx, certs, opts)


@builtin("crypto.x509.parse_certificate_request")
def parse_certificate_request(ctx: BuiltinContext, csr: Any) -> dict[str, Any]:
    f = "crypto.x509.parse_certificate_request"
    raw, is_pem = _decode_input(f, want_str(f, 1, csr))
    try:
        if is_pem:
            blocks = [der for kind, der in _pem_blocks(raw) if "CERTIFICATE REQUEST" in kind]
            if not blocks:
                raise ValueError("failed to parse a PEM certificate request")
            raw = blocks[0]
        req = x509.load_der_x509_csr(raw)
    except ValueError as exc:
        text = str(exc) if "PEM" in str(exc) else "asn1: structure error: malformed certificate request"
        raise BuiltinError(f"{f}: {text}") from None
    pka, pk = _public_key(req.public_key())
    out = {
        "Raw": _b64(req.public_bytes(serialization.Encoding.DER)),
        "RawTBSCertificateRequest": _b64(req.tbs_certrequest_bytes),
        "RawSubjectPublicKeyInfo": _b64(
            req.public_key().public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        ),
        "RawSubject": _b64(req.subject.public_bytes()),
        "Version": 0,
        "Signature": _b64(req.signature),
        "SignatureAlgorithm": _sig_alg(req),
        "PublicKeyAlgorithm": pka,
        "PublicKey": pk,
        "Subject": _name(req.subject),
        "Attributes": None,
        "Extensions": [{"Id": _oid(e.oid), "Critical": e.critical, "Value": None} for e in req.extensions]
        or None,
        "ExtraExtensions": None,
    }
    out.update(_san(req.extensions))
    return out


# ------------------------------------------------------------- private keys


def _priv_from_pem_block(kind: str, der: bytes) -> Any:
    if kind in ("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY"):
        pem = f"-----BEGIN {kind}-----\n{base64.encodebytes(der).decode()}-----END {kind}-----\n".encode()
        return serialization.load_pem_private_key(pem, password=None)
    raise ValueError(f"unsupported PEM block {kind}")


def _b64u_int(n: int, size: int | None = None) -> str:
    length = size if size is not None else max(1, (n.bit_length() + 7) // 8)
    return b64url_encode(n.to_bytes(length, "big"))


def private_jwk(key: Any) -> dict[str, Any]:
    if isinstance(key, rsa.RSAPrivateKey):
        n = key.private_numbers()
        return {"kty": "RSA", "n": _b64u_int(n.public_numbers.n), "e": _b64u_int(n.public_numbers.e),
                "d": _b64u_int(n.d), "p": _b64u_int(n.p), "q": _b64u_int(n.q), "dp": _b64u_int(n.dmp1),
                "dq": _b64u_int(n.dmq1), "qi": _b64u_int(n.iqmp)}  # fmt: skip
    if isinstance(key, ec.EllipticCurvePrivateKey):
        en = key.private_numbers()
        size = (key.curve.key_size + 7) // 8
        crv = {"secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"}.get(
            key.curve.name, key.curve.name
        )
        return {"kty": "EC", "crv": crv, "x": _b64u_int(en.public_numbers.x, size),
                "y": _b64u_int(en.public_numbers.y, size), "d": _b64u_int(en.private_value, size)}  # fmt: skip
    if isinstance(key, ed25519.Ed25519PrivateKey):
        raw = key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        pub = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {"kty": "OKP", "crv": "Ed25519", "x": b64url_encode(pub), "d": b64url_encode(raw)}
    raise ValueError("unsupported private key type")


def _input_pem(fname: str, s: str) -> bytes:
    return _decode_input(fname, s)[0]


@builtin("crypto.x509.parse_rsa_private_key")
def parse_rsa_private_key(ctx: BuiltinContext, pem: Any) -> dict[str, Any]:
    f = "crypto.x509.parse_rsa_private_key"
    raw = _input_pem(f, want_str(f, 1, pem))
    blocks = _pem_blocks(raw)
    if not blocks:
        raise BuiltinError(f"{f}: failed to parse PEM block containing the key")
    try:
        key = _priv_from_pem_block(*blocks[0])
    except ValueError as exc:
        raise BuiltinError(f"{f}: {exc}") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise BuiltinError(f"{f}: not an RSA private key")
    return private_jwk(key)


@builtin("crypto.parse_private_keys")
def parse_private_keys(ctx: BuiltinContext, keys: Any) -> list[Any] | None:
    f = "crypto.parse_private_keys"
    s = want_str(f, 1, keys)
    if s == "":
        return None
    try:
        raw = _input_pem(f, s)
    except BuiltinError:
        return []
    out = []
    for kind, der in _pem_blocks(raw):
        if kind not in ("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY"):
            continue  # as OPA: certificates, public, encrypted, DSA and OpenSSH keys are skipped
        try:
            out.append(private_jwk(_priv_from_pem_block(kind, der)))
        except ValueError as exc:
            raise BuiltinError(f"{f}: {exc}") from None
    return out


def _go_private_key(key: Any) -> Any:
    if isinstance(key, rsa.RSAPrivateKey):
        n = key.private_numbers()
        return {"N": n.public_numbers.n, "E": n.public_numbers.e, "D": n.d, "Primes": [n.p, n.q],
                "Precomputed": {"Dp": n.dmp1, "Dq": n.dmq1, "Qinv": n.iqmp, "CRTValues": []}}  # fmt: skip
    if isinstance(key, ec.EllipticCurvePrivateKey):
        en = key.private_numbers()
        return {"Curve": {}, "X": en.public_numbers.x, "Y": en.public_numbers.y, "D": en.private_value}
    if isinstance(key, ed25519.Ed25519PrivateKey):
        raw = key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        pub = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return _b64(raw + pub)
    return None


@builtin("crypto.x509.parse_keypair")
def parse_keypair(ctx: BuiltinContext, cert: Any, pem: Any) -> dict[str, Any]:
    f = "crypto.x509.parse_keypair"
    cert_raw = _input_pem(f, want_str(f, 1, cert))
    key_raw = _input_pem(f, want_str(f, 2, pem))
    ders = [der for kind, der in _pem_blocks(cert_raw) if kind == "CERTIFICATE"]
    if not ders:
        raise BuiltinError(f"{f}: tls: failed to find any PEM data in certificate input")
    keys = [(k, d) for k, d in _pem_blocks(key_raw) if k.endswith("PRIVATE KEY")]
    if not keys:
        raise BuiltinError(f"{f}: tls: failed to find any PEM data in key input")
    try:
        leaf = x509.load_der_x509_certificate(ders[0])
        key = _priv_from_pem_block(*keys[0])
    except ValueError as exc:
        raise BuiltinError(f"{f}: tls: {exc}") from None
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(serialization.Encoding.DER, spki) != leaf.public_key().public_bytes(
        serialization.Encoding.DER, spki
    ):
        raise BuiltinError(f"{f}: tls: private key does not match public key")
    return {
        "Certificate": [_b64(d) for d in ders],
        "PrivateKey": _go_private_key(key),
        "SupportedSignatureAlgorithms": None,
        "OCSPStaple": None,
        "SignedCertificateTimestamps": None,
        "Leaf": cert_to_obj(leaf),
    }
