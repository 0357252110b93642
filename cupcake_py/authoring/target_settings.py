"""What the policy paths of an authoring command (`validate`, `test`, `verify`) bring with them
besides their files: the custom builtins their rulebooks name and the Rego version of each file.

In: the command's targets (files or directories; a `.cupcake` directory holds a rulebook.yml),
--v0-compatible, --custom-builtins. Out: `rulebook_specs` (the rulebooks' `custom_builtins`
modules), `rego_versions` (a directory target holding an OPA bundle `.manifest`: its
`rego_version` / `file_rego_versions` for the files under it, as `opa build -b` reads them; else
--v0-compatible, else the rulebook's `rego_version` / `file_rego_versions`, else v1; a manifest
that is not JSON or names a version other than 0/1 raises RegoVersionError), `rego_setting` (the same, as a `RegoSetting`: a cache key that
names it without importing the Rego package, for a `cupcake test` served from its build
cache), `custom_builtins` (the modules named plus the installed entry
points; None when there are none). A rulebook that cannot be loaded gives v1 here (the command
reports the broken rulebook itself); a custom builtin module that cannot be loaded raises
CustomBuiltinError (the command fails closed on it). Imports neither typer nor the rulebook
models unless a target has a rulebook (nor pathlib, nor the Rego package unless a rulebook or a
build needs it).
"""

from __future__ import annotations

import os

from cupcake_py.core.errors import CupcakeError

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a cached `cupcake test`'s start-up)
    from pathlib import Path

    from cupcake_py.extensions.builtins import CustomBuiltins
    from cupcake_py.rego.versions import RegoVersions


def _rulebook(target: str | Path) -> str | None:
    """The rulebook.yml of a .cupcake directory among the targets, None for any other target."""
    path = os.path.join(target, "rulebook.yml")
    return path if os.path.isfile(path) else None


def rulebook_specs(targets: list[str | Path] | list[str] | list[Path]) -> list[str]:
    """The custom builtin modules listed by the rulebooks of the .cupcake directories among `targets`."""
    dirs = [t for t in targets if _rulebook(t)]  # (no rulebook: nothing to import)
    if not dirs:
        return []
    from cupcake_py.engine.bundle import rulebook_builtins

    return [s for t in dirs for s in rulebook_builtins(os.fspath(t))]


class RegoSetting:
    """The Rego versions of a run: `key` names them (the build cache's key; no import of the Rego
    package for --v0-compatible or the v1 default), `versions()` gives the RegoVersions."""

    __slots__ = ("key", "_versions")

    def __init__(self, key: str, versions: RegoVersions | None = None) -> None:
        self.key, self._versions = key, versions  # versions: None for the flag's own settings

    def versions(self) -> RegoVersions:
        if self._versions is None:
            from cupcake_py.rego import versions

            return versions.flag(self.key == "v0-compatible")
        return self._versions


def _manifest_versions(targets: list[str | Path] | list[str] | list[Path], default: str) -> RegoVersions | None:
    """The versions the `.manifest` files of directory targets give the files under them (each
    manifest's globs and its `rego_version` rooted at its directory; other files: `default`),
    None when no target holds a manifest."""
    found = [t for t in targets if os.path.isfile(os.path.join(t, ".manifest"))]
    if not found:
        return None
    import json

    from cupcake_py.rego.versions import RegoVersionError, RegoVersions

    files: list[tuple[str, str]] = []
    for t in found:
        path = os.path.join(t, ".manifest")
        try:
            with open(path, encoding="utf-8") as f:
                manifest = json.load(f)
        except (OSError, ValueError) as e:
            raise RegoVersionError(f"{path}: not a readable JSON bundle manifest: {e}") from e
        if not isinstance(manifest, dict):
            raise RegoVersionError(f"{path}: a bundle manifest is a JSON object")
        try:
            own = RegoVersions.from_manifest(manifest, default=default)
        except RegoVersionError as e:
            raise RegoVersionError(f"{path}: {e}") from e
        prefix = os.path.abspath(t).replace(os.sep, "/").strip("/")
        files += [(f"{prefix}/{glob}", version) for glob, version in own.files]
        files.append((f"{prefix}/*", own.default))  # (after the globs: an equal length keeps theirs)
    return RegoVersions(default, tuple(files), "/")


def rego_setting(targets: list[str | Path] | list[str] | list[Path], v0_compatible: bool) -> RegoSetting:
    """The `.manifest` of a directory target for the files under it, else --v0-compatible, else
    the rulebook `rego_version`/`file_rego_versions` of a .cupcake directory among `targets` (the
    default target), else v1."""
    manifests = _manifest_versions(targets, "v0" if v0_compatible else "v1")
    if manifests is not None:
        return RegoSetting(f"manifest {manifests!r}", manifests)
    if v0_compatible:
        return RegoSetting("v0-compatible")
    for t in targets:
        rulebook = _rulebook(t)
        if rulebook is not None:
            from cupcake_py.engine.rulebook import load_rulebook
            from cupcake_py.rego import versions

            try:
                found = load_rulebook(_as_path(rulebook)).rego_versions(str(_as_path(os.fspath(t)).absolute()))
            except CupcakeError:  # the command reports the broken rulebook itself (verify: [FAIL] rulebook)
                found = versions.V1_ONLY
            return RegoSetting(f"rulebook {found!r}", found)
    return RegoSetting("v1")


def _as_path(p: str) -> Path:
    from pathlib import Path

    return Path(p)


def rego_versions(targets: list[str | Path] | list[str] | list[Path], v0_compatible: bool) -> RegoVersions:
    """`rego_setting`'s RegoVersions."""
    return rego_setting(targets, v0_compatible).versions()


def custom_builtins(specs: list[str]) -> CustomBuiltins | None:
    """The custom builtins of --custom-builtins plus the installed entry points (None when there are none)."""
    from cupcake_py.extensions.entry_points import entry_point_specs

    if not specs and not entry_point_specs():  # (none: the host's builtin library is not imported for them)
        return None
    from cupcake_py.extensions.builtins import load

    found = load(specs)
    return found or None
