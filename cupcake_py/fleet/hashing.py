"""File digests as OPA's bundle signatures define them (`files[_].hash` of `.signatures.json`).

In: a file's name in the bundle and its bytes. Out: the hex digest. Unstructured files (Rego,
WASM, anything else) are hashed as bytes. Structured files (`.manifest`, `*.json`, `*.yaml`,
`*.yml`) are parsed and hashed in a canonical JSON form, so whitespace and key order do not
matter: object keys sorted, no insignificant whitespace, numbers kept as written, strings
escaped as Go's encoding/json escapes them (`<`, `>`, `&`, U+2028, U+2029 as \\u escapes; other
non-ASCII text as UTF-8).

Algorithms: SHA-224, SHA-256 (default when a file names none), SHA-384, SHA-512, SHA-512-224,
SHA-512-256, also spelt without the hyphen (`SHA256`, as OPA's own documentation example does).
MD5 and SHA-1, which OPA also accepts, are refused: a digest anyone can collide signs nothing.
Fails: `HashError` for a refused or unknown algorithm and for a structured file that does not parse.
"""

from __future__ import annotations

import hashlib
import json

from cupcake_py.core.errors import CupcakeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_ALGORITHM = "SHA-256"
ALGORITHMS = {"SHA-224": "sha224", "SHA-256": "sha256", "SHA-384": "sha384", "SHA-512": "sha512",
              "SHA-512-224": "sha512_224", "SHA-512-256": "sha512_256"}
REFUSED = ("MD5", "SHA-1", "SHA1")
STRUCTURED_SUFFIXES = (".json", ".yaml", ".yml")


class HashError(CupcakeError):
    pass


class _Number(str):
    """A JSON number kept as its text (never rounded through float)."""


def _algorithm(name: str | None) -> str:
    if not name:
        return ALGORITHMS[DEFAULT_ALGORITHM]
    upper = name.upper()
    if upper in REFUSED:
        raise HashError(f"hash algorithm {name} is refused (collisions are practical); sign with SHA-256")
    canonical = upper if upper in ALGORITHMS else upper.replace("SHA", "SHA-", 1) if not upper.startswith("SHA-") \
        else upper
    if canonical not in ALGORITHMS:
        raise HashError(f"unknown hash algorithm {name!r} (known: {', '.join(ALGORITHMS)})")
    return ALGORITHMS[canonical]


def is_structured(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base == ".manifest" or base.endswith(STRUCTURED_SUFFIXES)


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _string(s: str) -> str:
    out = json.dumps(s, ensure_ascii=False)
    return "".join(_GO_ESCAPES.get(c, c) for c in out) if any(c in out for c in _GO_ESCAPES) else out


def canonical_json(value: Any) -> str:
    """The canonical text of a parsed JSON value (keys sorted, compact, Go's string escapes)."""
    if isinstance(value, dict):
        return "{" + ",".join(_string(str(k)) + ":" + canonical_json(value[k]) for k in sorted(value, key=str)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, _Number):
        return str.__str__(value)
    if isinstance(value, str):
        return _string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):  # YAML numbers
        return json.dumps(value)
    return _string(str(value))  # YAML dates and other scalars: as their text


def _parse(name: str, data: bytes) -> Any:
    try:
        if name.endswith((".yaml", ".yml")):
            import yaml

            return yaml.safe_load(data.decode("utf-8"))
        return json.loads(data.decode("utf-8"), parse_int=_Number, parse_float=_Number)
    except (ValueError, UnicodeDecodeError) as e:
        raise HashError(f"{name}: a structured file that does not parse ({e})") from None
    except Exception as e:  # yaml.YAMLError
        raise HashError(f"{name}: a structured file that does not parse ({type(e).__name__}: {e})") from None


def digest(name: str, data: bytes, algorithm: str | None = None) -> str:
    """The hex digest of the file `name` with `data`, by OPA's rules."""
    h = hashlib.new(_algorithm(algorithm))
    h.update(canonical_json(_parse(name, data)).encode("utf-8") if is_structured(name) else data)
    return h.hexdigest()
