"""What the policy paths of an authoring command (`validate`, `test`, `verify`) bring with them
besides their files: the custom builtins their rulebooks name and the Rego version of each file.

In: the command's targets (files or directories; a `.cupcake` directory holds a rulebook.yml),
--v0-compatible, --custom-builtins. Out: `rulebook_specs` (the rulebooks' `custom_builtins`
modules), `rego_versions` (--v0-compatible, else the rulebook's `rego_version` /
`file_rego_versions`, else v1), `custom_builtins` (the modules named plus the installed entry
points; None when there are none). A rulebook that cannot be loaded gives v1 here (the command
reports the broken rulebook itself); a custom builtin module that cannot be loaded raises
CustomBuiltinError (the command fails closed on it). Imports neither typer nor the rulebook
models unless a target has a rulebook.
"""

from __future__ import annotations

from pathlib import Path

from cupcake_py.core.errors import CupcakeError

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a cached `cupcake test`'s start-up)
    from cupcake_py.extensions.builtins import CustomBuiltins
    from cupcake_py.rego.versions import RegoVersions


def rulebook_specs(targets: list[str | Path]) -> list[str]:
    """The custom builtin modules listed by the rulebooks of the .cupcake directories among `targets`."""
    dirs = [t for t in targets if (Path(t) / "rulebook.yml").is_file()]  # (no rulebook: nothing to import)
    if not dirs:
        return []
    from cupcake_py.engine.bundle import rulebook_builtins

    return [s for t in dirs for s in rulebook_builtins(str(t))]


def rego_versions(targets: list[str | Path] | list[Path], v0_compatible: bool) -> RegoVersions:
    """--v0-compatible, else the rulebook `rego_version`/`file_rego_versions` of a .cupcake
    directory among `targets` (the default target), else v1."""
    from cupcake_py.rego import versions

    if v0_compatible:
        return versions.V0_COMPATIBLE
    for t in targets:
        if (Path(t) / "rulebook.yml").is_file():
            from cupcake_py.engine.rulebook import load_rulebook

            try:
                return load_rulebook(Path(t) / "rulebook.yml").rego_versions(str(Path(t).absolute()))
            except CupcakeError:  # the command reports the broken rulebook itself (verify: [FAIL] rulebook)
                return versions.V1_ONLY
    return versions.V1_ONLY


def custom_builtins(specs: list[str]) -> CustomBuiltins | None:
    """The custom builtins of --custom-builtins plus the installed entry points (None when there are none)."""
    from cupcake_py.extensions.builtins import load

    found = load(specs)
    return found or None
