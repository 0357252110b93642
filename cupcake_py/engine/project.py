"""Finding the configuration: the project's `.cupcake/` and the global config dir.

Project (`--policy-dir P`): P itself when it is named `.cupcake`, else `P/.cupcake`.
Without --policy-dir the process working directory and its parents are searched for a
`.cupcake/` directory. Global: `--global-config DIR`, else `$XDG_CONFIG_HOME/cupcake`
(`~/.config/cupcake`), used when it exists. Both have the same layout:

    rulebook.yml            signals / builtins / telemetry / preprocessing
    system/                 optional; replaces the shipped aggregator when it has evaluate.rego
    policies/opencode/**    user policies (*.rego, any depth); policies/opencode/builtins/<name>.rego
                            overrides the shipped builtin <name> (loaded only when enabled)
                            (`*_test.rego` files are Rego unit tests for `cupcake test`: never bundled)
    signals/                executables, each a signal named by its file stem (5 s timeout)
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from cupcake_py.errors import CupcakeError
from cupcake_py.record import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

HARNESS = "opencode"
_PKG = Path(__file__).resolve().parents[1]


class ProjectError(CupcakeError):
    pass


@functools.cache
def shipped_policies_dir() -> Path:
    """`policies/` of the checkout, else the copy inside the wheel."""
    checkout = _PKG.parent / "policies"
    return checkout if (checkout / "system").is_dir() else _PKG / "_policies"


class ConfigDir(FrozenRecord):
    __slots__ = ("scope", "cupcake_dir", "root")
    scope: Literal["project", "global"]
    cupcake_dir: Path
    root: Path  # the project root (signals run here); for the global dir: the dir itself

    def __init__(self, scope: Literal["project", "global"], cupcake_dir: Path, root: Path) -> None:
        self._fill(scope, cupcake_dir, root)

    @property
    def rulebook(self) -> Path:
        return self.cupcake_dir / "rulebook.yml"

    @property
    def system_dir(self) -> Path:
        return self.cupcake_dir / "system"

    @property
    def policies_dir(self) -> Path:
        return self.cupcake_dir / "policies" / HARNESS

    @property
    def signals_dir(self) -> Path:
        return self.cupcake_dir / "signals"


def _project_at(p: Path) -> ConfigDir | None:
    if p.name == ".cupcake" and p.is_dir():
        return ConfigDir("project", p, p.parent)
    if (p / ".cupcake").is_dir():
        return ConfigDir("project", p / ".cupcake", p)
    return None


def find_project(policy_dir: str | None, start: Path | None = None) -> ConfigDir | None:
    if policy_dir is not None:
        p = Path(policy_dir).expanduser().absolute()
        found = _project_at(p)
        if found is None:
            raise ProjectError(f"--policy-dir {policy_dir}: no .cupcake directory there")
        return found
    here = (start or Path.cwd()).absolute()
    for d in (here, *here.parents):
        if (d / ".cupcake").is_dir():
            return ConfigDir("project", d / ".cupcake", d)
    return None


def find_global(global_config: str | None) -> ConfigDir | None:
    if global_config is not None:
        p = Path(global_config).expanduser().absolute()
        if not p.is_dir():
            raise ProjectError(f"--global-config {global_config}: not a directory")
        return ConfigDir("global", p, p)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    p = Path(base) / "cupcake"
    return ConfigDir("global", p, p) if p.is_dir() else None


TEST_SUFFIX = "_test.rego"


def is_test_file(p: Path) -> bool:
    """OPA's convention: `<name>_test.rego` holds unit tests, not policies."""
    return p.name.endswith(TEST_SUFFIX)


def rego_files(directory: Path) -> list[Path]:
    """Policy sources below `directory`: *.rego recursively, sorted, without unit-test files
    (`*_test.rego`); [] when it does not exist."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.rglob("*.rego") if p.is_file() and not is_test_file(p))


def signal_files(directory: Path) -> dict[str, Path]:
    """Auto-discovered signals: every non-dot file of signals/, named by its stem."""
    if not directory.is_dir():
        return {}
    return {p.stem: p for p in sorted(directory.iterdir()) if not p.name.startswith(".") and p.is_file()}
