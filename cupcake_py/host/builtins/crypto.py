"""crypto.md5/sha1/sha256 and crypto.hmac.* (hex digests of the UTF-8 bytes)."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import want_str

for _alg in ("md5", "sha1", "sha256"):

    def _hash(ctx: BuiltinContext, x: Any, _alg: str = _alg) -> str:
        return hashlib.new(_alg, want_str(f"crypto.{_alg}", 1, x).encode()).hexdigest()

    builtin(f"crypto.{_alg}")(_hash)

for _alg in ("md5", "sha1", "sha256", "sha512"):

    def _hmac(ctx: BuiltinContext, x: Any, key: Any, _alg: str = _alg) -> str:
        name = f"crypto.hmac.{_alg}"
        msg, k = want_str(name, 1, x).encode(), want_str(name, 2, key).encode()
        return hmac.new(k, msg, _alg).hexdigest()

    builtin(f"crypto.hmac.{_alg}")(_hmac)


@builtin("crypto.hmac.equal")
def hmac_equal(ctx: BuiltinContext, mac1: Any, mac2: Any) -> bool:
    a = want_str("crypto.hmac.equal", 1, mac1)
    b = want_str("crypto.hmac.equal", 2, mac2)
    return hmac.compare_digest(a.encode(), b.encode())
