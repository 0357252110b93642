"""Bundle signatures as OPA defines them: `.signatures.json` = {"signatures": [JWT]}, one JWT
whose payload lists every file of the bundle (`files`: [{name, hash, algorithm}]) plus optional
claims (`scope`, `iss`, `iat`, `exp`, ...); the key id goes in the JWT header (`kid`).
JWTs are made and checked by PyJWT over cryptography's keys; no hand-written crypto.

- `sign(bundle, key, alg, keyid, claims) -> bytes`: the `.signatures.json` text. `key`: a PEM
  private key (RS256/RS384/RS512, PS*, ES256/ES384/ES512) or the HMAC secret (HS256/...).
- `verify(bundle, config) -> dict`: the verified payload (with `kid`: the id of the key that
  verified it), or `SignatureError`. Whether a bundle
  must be signed is decided by the presence of a verification config (OPA's `signing:` block)
  and of the `.signatures.json` file, never by a key id alone:

  | `.signatures.json` | verification configured | result |
  | --- | --- | --- |
  | no | no | not verified (None) |
  | no | yes | SignatureError |
  | yes | no | SignatureError (a signed bundle nobody can check is not trusted) |
  | yes | yes | the JWT is checked with the configured key and algorithm (never the header's `alg`), |
  |  |  | its `scope` must equal the configured one, `exp`/`nbf` must hold, the `files` list must |
  |  |  | name exactly the bundle's files and every hash must match (hashing.py) |

The key: the config's `keyid` when it names one, else the JWT header's `kid` (or the legacy
`keyid` claim of OPA's documentation example); a key id the config does not know fails.
"""

from __future__ import annotations

import json
import time

from cupcake_py.core.errors import CupcakeError
from cupcake_py.fleet import hashing
from cupcake_py.fleet.opa_bundle import Bundle, normalise

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HMAC_ALGS = ("HS256", "HS384", "HS512")
ASYMMETRIC_ALGS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")
DEFAULT_ALG = "RS256"  # opa build / opa sign's default


class SignatureError(CupcakeError):
    pass


class VerificationKey:
    """A public key (PEM) or HMAC secret and the one algorithm it may verify."""

    __slots__ = ("key", "algorithm")

    def __init__(self, key: str | bytes, algorithm: str = DEFAULT_ALG) -> None:
        if algorithm not in HMAC_ALGS + ASYMMETRIC_ALGS:
            raise SignatureError(f"unsupported signing algorithm {algorithm!r} "
                                 f"(supported: {', '.join(HMAC_ALGS + ASYMMETRIC_ALGS)})")
        self.key = key
        self.algorithm = algorithm


class VerificationConfig:
    """OPA's bundle `signing:` block plus the `keys:` it refers to."""

    __slots__ = ("keys", "keyid", "scope")

    def __init__(self, keys: dict[str, VerificationKey], keyid: str | None = None, scope: str | None = None) -> None:
        self.keys = keys
        self.keyid = keyid
        self.scope = scope


def file_list(bundle: Bundle, algorithm: str = hashing.DEFAULT_ALGORITHM) -> list[dict[str, str]]:
    return [{"name": n, "hash": hashing.digest(n, b, algorithm), "algorithm": algorithm}
            for n, b in sorted(bundle.signed_files().items())]


def sign(bundle: Bundle, key: str | bytes, alg: str = DEFAULT_ALG, keyid: str | None = None,
         claims: dict[str, Any] | None = None) -> bytes:
    import jwt

    if alg not in HMAC_ALGS + ASYMMETRIC_ALGS:
        raise SignatureError(f"unsupported signing algorithm {alg!r}")
    payload: dict[str, Any] = {"iat": int(time.time()), **(claims or {}), "files": file_list(bundle)}
    headers = {"kid": keyid} if keyid else None
    try:
        token = jwt.encode(payload, key, algorithm=alg, headers=headers)
    except (ValueError, TypeError, AttributeError, jwt.PyJWTError) as e:  # AttributeError: a public key given
        raise SignatureError(f"cannot sign with this key and {alg}: {e}") from None
    return json.dumps({"signatures": [token]}, indent=2).encode() + b"\n"


def _token(raw: bytes) -> str:
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise SignatureError(f".signatures.json is not JSON: {e}") from None
    sigs = doc.get("signatures") if isinstance(doc, dict) else None
    if not isinstance(sigs, list) or len(sigs) != 1 or not isinstance(sigs[0], str):
        raise SignatureError(".signatures.json must hold exactly one JWT in `signatures` (as OPA requires)")
    return sigs[0]


def verify(bundle: Bundle, config: VerificationConfig | None, now: float | None = None) -> dict[str, Any] | None:
    import jwt

    raw = bundle.signatures
    if raw is None and config is None:
        return None
    if raw is None:
        raise SignatureError("the bundle is not signed (no .signatures.json) but this source requires a signature")
    if config is None:
        raise SignatureError("the bundle carries .signatures.json but no verification key is configured for it "
                             "(configure `signing:` for the source, or --verification-key)")
    token = _token(raw)
    try:
        header = jwt.get_unverified_header(token)
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as e:
        raise SignatureError(f"the signature is not a readable JWT: {e}") from None
    keyid = config.keyid or header.get("kid") or unverified.get("keyid")
    if keyid is None:
        if len(config.keys) != 1:
            raise SignatureError("the JWT names no key id and several verification keys are configured")
        keyid = next(iter(config.keys))
    vk = config.keys.get(keyid)
    if vk is None:
        raise SignatureError(f"no verification key with id {keyid!r} is configured")
    try:
        payload: dict[str, Any] = jwt.decode(
            token, vk.key, algorithms=[vk.algorithm], options={"require": ["files"], "verify_aud": False},
            leeway=0 if now is None else time.time() - now)
    except jwt.ExpiredSignatureError:
        raise SignatureError("the bundle's signature has expired (exp claim)") from None
    except jwt.PyJWTError as e:
        raise SignatureError(f"the signature does not verify with key {keyid!r} ({vk.algorithm}): {e}") from None
    except (ValueError, TypeError) as e:  # a key cryptography cannot load
        raise SignatureError(f"verification key {keyid!r} cannot be used: {e}") from None
    if config.scope is not None and payload.get("scope") != config.scope:
        raise SignatureError(f"signature scope {payload.get('scope')!r} does not match the configured scope "
                             f"{config.scope!r}")
    check_files(bundle, payload.get("files"))
    return {**payload, "kid": keyid}


def check_files(bundle: Bundle, listed: Any) -> None:
    """The signed `files` claim against the bundle: the same names, every hash equal."""
    if not isinstance(listed, list) or not all(isinstance(f, dict) and isinstance(f.get("name"), str)
                                               and isinstance(f.get("hash"), str) for f in listed):
        raise SignatureError("the signature's `files` claim is not a list of {name, hash, algorithm}")
    files = bundle.signed_files()
    signed: dict[str, dict[str, Any]] = {}
    for f in listed:
        try:
            signed[normalise(f["name"])] = f
        except CupcakeError as e:
            raise SignatureError(f"the signature lists a bad file name: {e}") from None
    missing = sorted(set(files) - set(signed))
    extra = sorted(set(signed) - set(files))
    if missing or extra:
        raise SignatureError("the signed file list does not match the bundle"
                             + (f"; not signed: {', '.join(missing[:5])}" if missing else "")
                             + (f"; signed but absent: {', '.join(extra[:5])}" if extra else ""))
    for name, f in sorted(signed.items()):
        try:
            actual = hashing.digest(name, files[name], f.get("algorithm"))
        except hashing.HashError as e:
            raise SignatureError(str(e)) from None
        if actual != f["hash"].lower():
            raise SignatureError(f"{name}: its hash does not match the signature (the file was changed)")
