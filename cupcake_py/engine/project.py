"""Finding the configuration: the project's `.cupcake/` and the global config dir.

Project (`--policy-dir P`): P itself when it is named `.cupcake`, else `P/.cupcake`.
Without --policy-dir the process working directory and its parents are searched for a
`.cupcake/` directory. Global: `--global-config DIR`, else `$XDG_CONFIG_HOME/cupcake`
(`~/.config/cupcake`), used when it exists. Both have the same layout:

    rulebook.yml            signals / builtins / telemetry / preprocessing
    system/                 optional; replaces the shipped aggregator when it has evaluate.rego
    policies/<harness>/**   user policies (*.rego, any depth) of the harness being evaluated
                            (policies/opencode/, policies/claude/); policies/<harness>/builtins/<name>.rego
                            overrides the shipped builtin <name> (loaded only when enabled)
                            (`*_test.rego` files are Rego unit tests for `cupcake test`: never bundled)
    signals/                executables, each a signal named by its file stem (5 s timeout)
"""

from __future__ import annotations

import os
import stat

from cupcake_py.core.cache_mac import KEY_NAME
from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.record import FrozenRecord
from cupcake_py.core.userdirs import global_config_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Literal

    StrPath = str | os.PathLike[str]

# The policy subdirectory when the caller names no harness: configurations made before the harness
# layer keep their policies in policies/opencode/ (the engine itself knows no harness).
DEFAULT_POLICY_SUBDIR = "opencode"
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # cupcake_py/


class ProjectError(CupcakeError):
    pass


def _path(p: str) -> Path:
    """`p` as a pathlib.Path for the callers that want one (authoring, CLI commands, tests);
    `cupcake eval` works on str paths and never imports pathlib."""
    from pathlib import Path

    return Path(p)


class _PathOf:
    """A read-only attribute: the pathlib.Path of the str path in attribute `name`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None) -> Path:
        return _path(getattr(obj, self.name))


_shipped: list[str] = []  # memo (functools, with collections, costs a routing miss ~3 ms to import)


def shipped_policies_path() -> str:
    """`policies/` of the checkout, else the copy inside the wheel."""
    if not _shipped:
        checkout = os.path.join(os.path.dirname(PACKAGE_DIR), "policies")
        in_checkout = os.path.isdir(os.path.join(checkout, "system"))
        _shipped.append(checkout if in_checkout else os.path.join(PACKAGE_DIR, "_policies"))
    return _shipped[0]


def shipped_policies_dir() -> Path:
    return _path(shipped_policies_path())


class ConfigDir(FrozenRecord):
    """A configuration directory, kept as str paths (`cupcake_path`, `root_path` and the
    `*_path` properties: `cupcake eval` never imports pathlib). `cupcake_dir`, `root`,
    `rulebook` and the `*_dir` properties give the same locations as pathlib.Paths.
    `harness` names the policy subdirectory (`policies/<harness>/`) and is part of the bundle key."""

    __slots__ = ("scope", "cupcake_path", "root_path", "harness")
    scope: Literal["project", "global", "org"]
    cupcake_path: str
    root_path: str  # the project root (signals run here); for the global dir: the dir itself
    harness: str

    def __init__(self, scope: Literal["project", "global", "org"], cupcake_dir: StrPath, root: StrPath,
                 harness: str = DEFAULT_POLICY_SUBDIR) -> None:
        self._fill(scope, os.fspath(cupcake_dir), os.fspath(root), harness)

    @property
    def rulebook_path(self) -> str:
        return os.path.join(self.cupcake_path, "rulebook.yml")

    @property
    def system_path(self) -> str:
        return os.path.join(self.cupcake_path, "system")

    @property
    def policies_path(self) -> str:
        return os.path.join(self.cupcake_path, "policies", self.harness)

    @property
    def signals_path(self) -> str:
        return os.path.join(self.cupcake_path, "signals")

    cupcake_dir = _PathOf("cupcake_path")
    root = _PathOf("root_path")
    rulebook = _PathOf("rulebook_path")
    system_dir = _PathOf("system_path")
    policies_dir = _PathOf("policies_path")


def _absolute(p: StrPath) -> str:
    return os.path.abspath(os.path.expanduser(os.fspath(p)))


def is_config_dir(p: str) -> bool:
    """True when `p` is a directory, False when nothing is there; a ProjectError when something
    is there that cannot serve as one (a file, a dangling link, no permission to look):
    a configuration that exists but cannot be read never counts as absent."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        if os.path.lexists(p):
            raise ProjectError(f"{p}: a dangling symbolic link where a configuration directory belongs") from None
        return False
    except NotADirectoryError:
        return False
    except OSError as e:
        raise ProjectError(f"{p}: cannot be read: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ProjectError(f"{p}: not a directory (a configuration directory belongs here)")
    return True


def _project_at(p: str, harness: str) -> ConfigDir | None:
    if os.path.basename(p) == ".cupcake" and is_config_dir(p):
        return ConfigDir("project", p, os.path.dirname(p), harness)
    if is_config_dir(os.path.join(p, ".cupcake")):
        return ConfigDir("project", os.path.join(p, ".cupcake"), p, harness)
    return None


def find_project(policy_dir: str | None, start: StrPath | None = None, *,
                 harness: str = DEFAULT_POLICY_SUBDIR) -> ConfigDir | None:
    if policy_dir is not None:
        found = _project_at(_absolute(policy_dir), harness)
        if found is None:
            raise ProjectError(f"--policy-dir {policy_dir}: no .cupcake directory there")
        return found
    d = os.getcwd() if start is None else _absolute(start)
    while True:
        if is_config_dir(os.path.join(d, ".cupcake")):
            return ConfigDir("project", os.path.join(d, ".cupcake"), d, harness)
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent




def find_global(global_config: str | None, *, harness: str = DEFAULT_POLICY_SUBDIR) -> ConfigDir | None:
    """The global configuration: --global-config DIR (must be a directory), else the default
    dir when it exists and holds more than the cache MAC key. A default dir that exists but
    cannot be read is a ProjectError (its protections must not silently disappear)."""
    if global_config is not None:
        p = _absolute(global_config)
        if not os.path.isdir(p):
            raise ProjectError(f"--global-config {global_config}: not a directory")
        return ConfigDir("global", p, p, harness)
    p = global_config_dir()
    if not is_config_dir(p):
        return None
    try:
        names = os.listdir(p)
    except OSError as e:
        raise ProjectError(f"global config dir {p}: cannot be read: {e.strerror or e}") from None
    if names and all(n == KEY_NAME or (n.startswith(f".{KEY_NAME}.") and n.endswith(".tmp")) for n in names):
        return None
    return ConfigDir("global", p, p, harness)


TEST_SUFFIX = "_test.rego"


def is_test_file(p: StrPath) -> bool:
    """OPA's convention: `<name>_test.rego` holds unit tests, not policies."""
    return os.path.basename(os.fspath(p)).endswith(TEST_SUFFIX)


def stem(name: str) -> str:
    """A file name without its last suffix (pathlib's `stem`: `a.b.sh` → `a.b`, `.x` → `.x`)."""
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name


def path_order(p: str) -> list[str]:
    """Sort key ordering str paths as pathlib orders them (component by component)."""
    return p.split("/")


def _entries(directory: str, top: bool) -> list[os.DirEntry[str]]:
    """The entries of a configuration directory; [] when `top` and it does not exist. Anything
    else that keeps it from being read (no permission, a file or a dangling link where a
    directory belongs, an I/O error) is a ProjectError: a configuration is read whole or not
    at all, never with a part silently skipped."""
    try:
        return list(os.scandir(directory))
    except FileNotFoundError:
        if top and not os.path.lexists(directory):
            return []
        raise ProjectError(f"{directory}: a dangling symbolic link or a missing directory in the configuration") \
            from None
    except NotADirectoryError:
        raise ProjectError(f"{directory}: not a directory (the configuration expects one here)") from None
    except OSError as e:
        raise ProjectError(f"{directory}: cannot be read: {e.strerror or e}") from None


def rego_paths(directory: str) -> list[str]:
    """Policy sources below `directory`: *.rego recursively, in path order, without unit-test
    files (`*_test.rego`); [] when it does not exist. A subdirectory that cannot be read, a
    symlinked directory (not followed: its policies would be skipped), a dangling symbolic link
    and a `.rego` entry that is not a regular file are ProjectErrors."""
    found: list[str] = []
    pending = [(directory, True)]
    while pending:
        d, top = pending.pop()
        for e in _entries(d, top):
            if e.is_dir(follow_symlinks=False):
                pending.append((e.path, False))
            elif e.is_symlink() and e.is_dir():
                raise ProjectError(f"{e.path}: a symbolic link to a directory; policies are not read through "
                                   "directory links (copy the directory or link the files)")
            elif e.is_symlink() and not os.path.exists(e.path):
                raise ProjectError(f"{e.path}: a dangling symbolic link in the configuration")
            elif e.name.endswith(".rego") and not is_test_file(e.name):
                if not e.is_file():
                    raise ProjectError(f"{e.path}: not a readable regular file")
                found.append(e.path)
    return sorted(found, key=path_order)


def rego_files(directory: StrPath) -> list[Path]:
    """`rego_paths` as pathlib.Paths."""
    return [_path(p) for p in rego_paths(os.fspath(directory))]


def signal_paths(directory: str) -> dict[str, str]:
    """Auto-discovered signals: every non-dot file of signals/, named by its stem ({} when
    signals/ does not exist; ProjectError when it cannot be read or an entry is not a file)."""
    out: dict[str, str] = {}
    for e in sorted(_entries(directory, True), key=lambda e: e.name):
        if e.name.startswith("."):
            continue
        if not e.is_file():
            raise ProjectError(f"{e.path}: signals/ holds only executable files (this is not a regular file)")
        out[stem(e.name)] = e.path
    return out


def signal_files(directory: StrPath) -> dict[str, Path]:
    """`signal_paths` as pathlib.Paths."""
    return {name: _path(p) for name, p in signal_paths(os.fspath(directory)).items()}
