"""OPA's bundle format: a gzipped tarball of policies (`*.rego`), data (`data.json`,
`data.yaml`), WebAssembly (`policy.wasm`) and a `.manifest`, optionally `.signatures.json`.

- `read(blob) -> Bundle`: the files of a bundle archive. Entry names are normalised (a leading
  `/` or `./` dropped, as `opa build` writes `/.manifest`). Refused (`BundleFormatError`): a
  truncated or corrupt archive, a name with `..` or an empty component, a link, device or other
  non-regular member, the same name twice, more than `MAX_FILES` files or `MAX_BYTES` bytes.
- `read_dir(path) -> Bundle`: the same from a directory laid out as a bundle (`opa build -b DIR`).
- `write(files) -> bytes`: a deterministic archive (sorted names with a leading `/`, mtime 0,
  owner 0, mode 0644, gzip without a timestamp): the same files give the same bytes.
- `Manifest.parse(bytes)`: `revision` (string), `roots` (default `[""]`), `rego_version`
  (0 or 1, default 1), `file_rego_versions` (globs -> 0 or 1), `wasm` ([{entrypoint, module}]),
  `metadata`; `Manifest.rego_version_of(path)` answers per file (rego/versions.py's rules).
"""

from __future__ import annotations

import io
import json
import os
import tarfile

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MANIFEST = ".manifest"
SIGNATURES = ".signatures.json"
MAX_FILES = 10_000
MAX_BYTES = 64 * 1024 * 1024


class BundleFormatError(CupcakeError):
    pass


def normalise(name: str) -> str:
    """A member name as bundle files name it: no leading `/` or `./`; `..`, empty or `.`
    components refused."""
    n = name
    while n.startswith(("/", "./")):
        n = n[1:] if n.startswith("/") else n[2:]
    parts = n.split("/")
    if not n or any(p in ("", ".", "..") for p in parts):
        raise BundleFormatError(f"bundle entry {name!r}: not a plain relative path")
    return n


class Bundle(Record):
    """The files of a bundle (name -> bytes, names normalised)."""

    __slots__ = ("files",)
    files: dict[str, bytes]

    def __init__(self, files: dict[str, bytes]) -> None:
        self._fill(files)

    @property
    def manifest(self) -> Manifest:
        raw = self.files.get(MANIFEST)
        return Manifest.parse(raw) if raw is not None else Manifest({})

    @property
    def signatures(self) -> bytes | None:
        return self.files.get(SIGNATURES)

    def signed_files(self) -> dict[str, bytes]:
        """Every file a signature must list: all but `.signatures.json`."""
        return {n: b for n, b in self.files.items() if n != SIGNATURES}


def read(blob: bytes) -> Bundle:
    files: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            for member in tar:
                if member.isdir():
                    continue
                if not member.isfile():
                    raise BundleFormatError(f"bundle entry {member.name!r}: not a regular file (links and devices "
                                            "are refused)")
                name = normalise(member.name)
                if name in files:
                    raise BundleFormatError(f"bundle entry {name!r} appears twice")
                total += member.size
                if len(files) >= MAX_FILES or total > MAX_BYTES:
                    raise BundleFormatError(f"bundle larger than {MAX_FILES} files or {MAX_BYTES} bytes")
                f = tar.extractfile(member)
                data = f.read() if f is not None else b""
                if len(data) != member.size:
                    raise BundleFormatError(f"bundle entry {name!r} is truncated")
                files[name] = data
    except (tarfile.TarError, EOFError, OSError, ValueError) as e:  # gzip errors are OSError/EOFError
        if isinstance(e, BundleFormatError):
            raise
        raise BundleFormatError(f"not a readable bundle archive (truncated or corrupt): {type(e).__name__}: {e}") \
            from None
    return Bundle(files)


def read_dir(path: str) -> Bundle:
    files: dict[str, bytes] = {}
    for root, dirs, names in os.walk(path, followlinks=False):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(root, n)
            if os.path.islink(p) or not os.path.isfile(p):
                raise BundleFormatError(f"{p}: not a regular file (links are refused in a bundle)")
            with open(p, "rb") as f:
                files[normalise(os.path.relpath(p, path))] = f.read()
            if len(files) > MAX_FILES:
                raise BundleFormatError(f"{path}: more than {MAX_FILES} files")
    return Bundle(files)


def write(files: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(files):
            info = tarfile.TarInfo("/" + normalise(name))
            info.size = len(files[name])
            info.mode = 0o644
            info.mtime = 0
            tar.addfile(info, io.BytesIO(files[name]))
    import gzip

    return gzip.compress(raw.getvalue(), compresslevel=9, mtime=0)


class Manifest:
    """A validated `.manifest` (the fields are read from `raw`)."""

    __slots__ = ("revision", "roots", "rego_version", "file_rego_versions", "wasm", "metadata", "raw")
    revision: str
    roots: list[str]
    rego_version: int
    file_rego_versions: dict[str, int]
    wasm: list[dict[str, str]]
    metadata: dict[str, Any]
    raw: dict[str, Any]

    def __init__(self, raw: dict[str, Any]) -> None:
        revision = raw.get("revision", "")
        roots = raw.get("roots", [""])
        rego_version = raw.get("rego_version", 1)
        per_file = raw.get("file_rego_versions", {})
        wasm = raw.get("wasm", [])
        metadata = raw.get("metadata", {})
        problems = [what for what, ok in (
            ("revision must be a string", isinstance(revision, str)),
            ("roots must be a list of strings", isinstance(roots, list) and all(isinstance(r, str) for r in roots)),
            ("rego_version must be 0 or 1", rego_version in (0, 1) and not isinstance(rego_version, bool)),
            ("file_rego_versions must map paths to 0 or 1", isinstance(per_file, dict)
             and all(v in (0, 1) and not isinstance(v, bool) for v in per_file.values())),
            ("wasm must be a list of {entrypoint, module}", isinstance(wasm, list) and all(
                isinstance(w, dict) and isinstance(w.get("entrypoint"), str) and isinstance(w.get("module"), str)
                for w in wasm)),
            ("metadata must be an object", isinstance(metadata, dict)),
        ) if not ok]
        if problems:
            raise BundleFormatError(".manifest: " + "; ".join(problems))
        self.revision, self.roots, self.rego_version = revision, roots, rego_version
        self.file_rego_versions, self.wasm, self.metadata, self.raw = per_file, wasm, metadata, raw

    @classmethod
    def parse(cls, raw: bytes) -> Manifest:
        try:
            value = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise BundleFormatError(f".manifest is not JSON: {e}") from None
        if not isinstance(value, dict):
            raise BundleFormatError(".manifest is not a JSON object")
        return cls(value)

    def rego_version_of(self, path: str) -> int:
        """The Rego version (0 or 1) of one policy file: its `file_rego_versions` glob, else the
        bundle's `rego_version` (the rules of `cupcake_py.rego.versions`, issue 32)."""
        from cupcake_py.rego.versions import RegoVersions

        return 0 if RegoVersions.from_manifest(self.raw, "/").of("/" + normalise(path)) == "v0" else 1

    def encode(self) -> bytes:
        return json.dumps(self.raw, sort_keys=True, indent=2).encode() + b"\n"

    def covers(self, path: str) -> bool:
        """Whether a data path (`a/b`) lies under one of the roots."""
        return any(r == "" or path == r or path.startswith(r.rstrip("/") + "/") for r in self.roots)
