"""Which Rego syntax a policy file is read with, per file, as OPA decides it.

Versions are `"v1"` (OPA 1.x, the default) and `"v0"` (OPA's `--v0-compatible`: pre-1.0 syntax,
see `parser.Parser`). A module that imports `rego.v1` is read as v1 whatever its file's version.

In: a default version and, optionally, per-file versions given as OPA's bundle manifest
gives them (`"rego_version": 0|1` and `"file_rego_versions": {"<glob>": 0|1}`, the glob over
the file's path relative to the bundle root; OPA compiles it with gobwas/glob and no separator,
so `*` and `**` both match across `/` and `?` any one character; the longest matching pattern
wins). Out: `RegoVersions.of(path)`. A manifest
value other than 0 or 1 raises `RegoVersionError` (fail closed: never a silent guess).

`use(versions)` makes a `RegoVersions` the current one for a block (a command's
`--v0-compatible`): `parse_module(text, filename)` without an explicit version asks it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.record import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a cached `cupcake test`'s start-up)
    from pathlib import PurePath
    from typing import Any

V0 = "v0"
V1 = "v1"
VERSIONS = (V0, V1)


class RegoVersionError(CupcakeError):
    """A rego_version that is neither 0 nor 1 (or "v0"/"v1")."""


def version_of(value: Any, what: str = "rego_version") -> str:
    """0/1 (OPA's manifest numbers) or "v0"/"v1" -> "v0"/"v1"."""
    if isinstance(value, bool):
        raise RegoVersionError(f"{what}: expected 0 or 1, got {value!r}")
    if value in (0, 1):
        return VERSIONS[value]
    if value in VERSIONS:
        return str(value)
    raise RegoVersionError(f"{what}: expected 0 or 1, got {value!r}")


@cache
def _glob(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "*":  # `*` and `**` alike: no separator was given to the glob
            out.append(".*")
            i += 2 if pattern.startswith("**", i) else 1
        elif pattern[i] == "?":
            out.append(".")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _rel(path: str | PurePath, root: str | PurePath | None) -> str:
    from pathlib import PurePath  # (only a manifest's per-file versions: pathlib stays off a first run)

    p = PurePath(path)
    if root is not None:
        try:
            p = PurePath(os.path.abspath(p)).relative_to(os.path.abspath(root))
        except ValueError:
            pass
    return p.as_posix().lstrip("/").removeprefix("./")


class RegoVersions(FrozenRecord):
    """The version of each file: the longest matching `files` glob, else `default`."""

    __slots__ = ("default", "files", "root")

    def __init__(self, default: str = V1, files: tuple[tuple[str, str], ...] = (), root: str | None = None) -> None:
        self._fill(default, files, root)  # files: (glob relative to root, version)

    default: str
    files: tuple[tuple[str, str], ...]
    root: str | None

    def of(self, path: str | PurePath) -> str:
        if self.files:
            rel = _rel(path, self.root)
            for pattern, version in sorted(self.files, key=lambda f: -len(f[0])):
                if _glob(pattern).match(rel):
                    return version
        return self.default

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any], root: str | PurePath | None = None,
                      default: str = V1) -> RegoVersions:
        """OPA's manifest keys `rego_version` and `file_rego_versions` (absent: `default`)."""
        base = version_of(manifest["rego_version"]) if manifest.get("rego_version") is not None else default
        raw = manifest.get("file_rego_versions") or {}
        if not isinstance(raw, Mapping):
            raise RegoVersionError("file_rego_versions: expected a mapping of path globs to 0 or 1")
        files = tuple((str(k).lstrip("/").removeprefix("./"), version_of(v, f"file_rego_versions[{k!r}]"))
                      for k, v in sorted(raw.items()))
        return cls(base, files, None if root is None else str(root))


V1_ONLY = RegoVersions()
V0_COMPATIBLE = RegoVersions(V0)
_current: RegoVersions = V1_ONLY


def current() -> RegoVersions:
    return _current


def flag(v0_compatible: bool) -> RegoVersions:
    """The versions of a command's `--v0-compatible` flag."""
    return V0_COMPATIBLE if v0_compatible else V1_ONLY


@contextmanager
def use(versions: RegoVersions) -> Iterator[RegoVersions]:
    """Within the block, files are read with `versions` unless a caller says otherwise."""
    global _current
    previous, _current = _current, versions
    try:
        yield versions
    finally:
        _current = previous
