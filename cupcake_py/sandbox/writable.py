"""The writable roots of a sandbox profile: the directories an agent's shell command may change.

In: the project root, the merged `sandbox:` settings (`writable`), the home directory, the paths
policies add, the PATH dirs, the file system through `Lookups` (sandbox/lookups.py).
Out: `writable_roots(...)` — resolved, existing directories: the project root, $TMPDIR (TMP,
TEMP), `settings.writable` (default `DEFAULT_WRITABLE`: /tmp, /var/tmp and the tool caches;
missing ones below the home directory are created: a cache a tool would create on first use; for
the caches of `CACHE_TOOLS`, only when one of its tools is on the PATH dirs or in the project
root). `under(path, root)`, `real(fs, path)`, `paths(items, home, base)`: the path helpers the profile shares.
Used for `input.sandbox.writable` and by the profile (sandbox/profile.py).
"""

from __future__ import annotations

import os

from cupcake_py.sandbox.lookups import Lookups

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

# The temp dirs and the tool caches a developer's commands write (rulebook `sandbox.writable`
# default; `~` = home). $TMPDIR (TMP, TEMP) is always writable.
DEFAULT_WRITABLE = ("/tmp", "/var/tmp", "~/.cache", "~/.npm", "~/.yarn", "~/.pnpm-store", "~/.local/share/pnpm", "~/.cargo/registry",
                    "~/.cargo/git", "~/go/pkg/mod", "~/.gradle/caches", "~/.m2/repository", "~/.bun/install/cache",
                    "~/.local/share/virtualenvs")
# The default tool caches that are created when missing only when a program that fills them is
# on PATH (or its wrapper script is in the project root): each writable root is a bind, which
# costs bubblewrap a mount table scan (≈ 0.15 ms per command), and a cache no tool here fills
# needs none. An existing one is always bound; a path not listed here is created as configured.
CACHE_TOOLS: dict[str, tuple[str, ...]] = {
    "~/.npm": ("npm", "npx"), "~/.yarn": ("yarn",), "~/.pnpm-store": ("pnpm",), "~/.local/share/pnpm": ("pnpm",),
    "~/.cargo/registry": ("cargo",), "~/.cargo/git": ("cargo",), "~/go/pkg/mod": ("go",),
    "~/.gradle/caches": ("gradle", "gradlew"), "~/.m2/repository": ("mvn", "mvnw"), "~/.bun/install/cache": ("bun",),
    "~/.local/share/virtualenvs": ("pipenv",),
}


def under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def real(fs: Lookups, path: str) -> str:
    """os.path.realpath(path), from `fs`'s answers."""
    return fs.real(os.path.abspath(path))


def paths(items: Iterable[Any], home: str, base: str) -> list[str]:
    """Strings as absolute paths: `~` expanded, relative ones below `base`."""
    from cupcake_py.core.userdirs import expand_home

    out = []
    for item in items:
        if isinstance(item, str) and item.strip():
            p = expand_home(item.strip(), home)
            out.append(os.path.normpath(p if os.path.isabs(p) else os.path.join(base, p)))
    return out


def _tool_present(tools: Sequence[str], path_dirs: Sequence[str], project_root: str, fs: Lookups) -> bool:
    """Whether one of `tools` is an executable in a PATH dir or in the project root (a wrapper
    script such as `./gradlew`)."""
    dirs = [d for d in path_dirs if d] + [project_root]
    return any(fs.access(os.path.join(d, t), os.X_OK) for t in tools for d in dirs)


def writable_roots(project_root: str, settings: dict[str, Any], home: str,
                   extra: Sequence[Any] = (), fs: Lookups | None = None,
                   path_dirs: Sequence[str] | None = None) -> list[str]:
    """The writable roots (resolved, existing directories): the project root, $TMPDIR (TMP,
    TEMP), `settings.writable` (missing ones below the home directory are created: a cache a tool
    would create on first use; for the caches of `CACHE_TOOLS`, only when one of its tools is on
    `path_dirs` (default: $PATH) or in the project root) and `extra`."""
    from cupcake_py.core.userdirs import expand_home

    fs = fs or Lookups()
    env_tmp = [os.environ.get(v, "") for v in ("TMPDIR", "TMP", "TEMP")]
    wanted = [project_root, *(t for t in env_tmp if os.path.isabs(t))]
    home = home.rstrip("/")
    if path_dirs is None:
        path_dirs = os.environ.get("PATH", "").split(os.pathsep)
    for item in settings.get("writable", DEFAULT_WRITABLE):
        p = os.path.normpath(expand_home(item, home))
        if not os.path.isabs(p):
            p = os.path.join(project_root, p)
        tools = CACHE_TOOLS.get(item)
        if tools is not None and not fs.exists(p) and not _tool_present(tools, path_dirs, project_root, fs):
            continue  # no tool here fills it: no directory to create, no bind
        if not fs.exists(p) and under(p, home) and p != home and not fs.makedirs(p):
            continue
        wanted.append(p)
    wanted += paths(extra, home, project_root)
    out: list[str] = []
    for p in wanted:
        r = real(fs, p)
        if fs.isdir(r) and r != "/" and r not in out:
            out.append(r)
    return out
