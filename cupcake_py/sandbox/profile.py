"""The sandbox profile: which paths an agent's shell command may write, may only read, may not see.

In (`Sources`): the state paths and PATH dirs of engine/state_paths.py (as data), the project
root and the event's working directory, the merged `sandbox:` settings of the rulebooks
(`settings`: writable, read_only, hidden, network, share_processes), the rulebook's protected path
patterns (protected_paths and the guardrails' own), sensitive_data_protection's
additional_patterns, the paths policies add (`extension`: {read_only, hidden, writable}) and the
home directory.
Out: `compute(sources)` → the profile, plain JSON data with sorted, resolved (realpath) absolute
paths:

- `writable`: existing directories the command may change: the project root, $TMPDIR, and
  `settings.writable` (default: /tmp, /var/tmp and the tool caches; created when missing below
  the home directory, a default tool cache only when a tool that fills it is on PATH or in the
  project root: `CACHE_TOOLS`); one inside another is left out (the outer one's bind holds it).
  Everything else is read-only (the bubblewrap base is a read-only bind of `/`).
- `read_only`: paths inside a writable root that stay read-only (one inside another is left
  out: the outer one's read-only bind holds it): every state path (cupcake's
  config, caches, state, plugins, executables), the Python environment running cupcake (prefix,
  site-packages, user site, pyvenv.cfg, the interpreter), the agents' configuration (`.claude/`,
  `~/.claude/`, `~/.claude.json`, `.mcp.json`, `.opencode/`, `opencode.json*`, `.cupcake/`),
  git's `hooks`, `config`, `config.worktree`, `commondir`, the `core.hooksPath` directory, the hook files `.husky` and
  `.pre-commit-config.yaml`, the concrete protected paths, each PATH dir's `cupcake`,
  `settings.read_only` and the extension's.
- `pinned`: the directories between a writable root and a read-only path, or a hidden one below
  the project, inside it (`.git` for `.git/hooks`): bound onto themselves, so they cannot be
  renamed or removed and the path cannot be moved away with its parent and replaced.
- `hidden`: paths shown empty (a read-only empty file or directory over them): the sensitive set
  (sandbox/secrets.py), read-protected state paths (the cache MAC key), sockets of processes that
  run outside the sandbox (sandbox/sockets.py: container engines, terminal multiplexers, the SSH
  agent, the user's runtime dir, sockets named in the environment, this user's listening
  sockets), `settings.hidden` and the extension's.
- `absent`: read-only entries inside a writable root that do not exist yet but whose creation
  would change what an agent or git loads (`.claude/`, `.opencode/`, `.mcp.json`,
  `opencode.json(c)`, `cupcake` in a writable PATH dir, `.git/commondir`, `.husky`,
  `.pre-commit-config.yaml`). A mount would need a visible mount point, so instead the
  wrapper removes whatever the command created there once the sandbox has ended (its pid
  namespace ends with it, so no sandboxed process is left to create it again).
- `unset_env`: the names of the environment variables holding secrets (sandbox/secrets.py
  `sensitive_env`), but `settings.pass_env`: unset inside the sandbox.
- `network`, `share_processes`: from the settings.
- `covers`: what the floor guarantees for this call, read by the builtins through
  `input.sandbox.covers` (state_paths: always; system: every system_protection
  additional path is concrete (the system dirs are outside every writable root, the home's
  persistence files are read-only); secrets: the sensitive scan was complete; protected_paths:
  every protected pattern is a concrete path); all false with `share_processes` (a command then
  writes through /proc/<pid>/root of any process of the user, past every mount).

A writable root inside a read-only or hidden path is dropped (protection wins); entries below a
hidden path are dropped, hidden ones too (the hidden mount covers them). Never raises for unreadable paths: they
are resolved as written.
"""

from __future__ import annotations

import os
import sys

from cupcake_py.sandbox.secrets import concrete, hidden_paths, secret_environment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

PROFILE_VERSION = 1
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
AGENT_CONFIG_DIRS = (".claude", ".opencode", ".cupcake")  # below the project root and the working directory
AGENT_CONFIG_FILES = (".mcp.json", "opencode.json", "opencode.jsonc")
HOME_AGENT_CONFIG = (".claude", ".claude.json", ".config/opencode", ".config/cupcake")
# `commondir` (when created) makes git read its config and hooks from the directory it names.
GIT_PROTECTED = ("hooks", "config", "config.worktree", "commondir")
# Files that define the commands git hooks run (git_block_no_verify's hook files): below the roots.
HOOK_FILES = (".husky", ".pre-commit-config.yaml")
# system_protection's shell start-up and persistence files below home (tables.rego sys_home_files;
# tests/sandbox/test_profile.py keeps them equal): read-only where a writable root holds them.
HOME_PERSISTENCE = (
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
    ".zlogin", ".zlogout", ".vimrc", ".config/nvim", ".tmux.conf", ".npmrc", ".pip", ".config/pip", ".pydistutils.cfg",
    ".kshrc", ".cshrc", ".tcshrc", ".mkshrc", ".inputrc", ".xprofile", ".xinitrc", ".xsession", ".pam_environment",
    ".gitconfig", ".config/git", ".config/fish", ".config/systemd", ".config/autostart", ".config/environment.d",
    ".config/nushell", ".config/powershell", ".config/upstart", ".ssh", ".gnupg", ".local/share/keyrings", ".local/bin",
    ".local/share/systemd", "library/launchagents", ".config", ".bash_aliases", ".bash_completion", "bin",
    ".cargo/bin", ".npm-global/bin",
)
# Removed after the command when it created them (missing before, inside a writable root): their
# creation would configure an agent. Not `.cupcake`: the guardrails read it (a nested one is a
# project config the reading sees).
ABSENT_NAMES = frozenset({".claude", ".opencode", ".mcp.json", "opencode.json", "opencode.jsonc", "cupcake", "commondir",
                          ".husky", ".pre-commit-config.yaml"})

class Sources:
    """What a profile is computed from (see the module docstring)."""

    __slots__ = ("state_paths", "path_dirs", "project_root", "cwd", "settings", "protected", "sensitive",
                 "extension", "home", "system", "real", "memo_dir")

    def __init__(self, state_paths: Sequence[dict[str, Any]], path_dirs: Sequence[str], project_root: str, cwd: str,
                 settings: dict[str, Any], protected: Sequence[str] = (), sensitive: Sequence[str] = (),
                 extension: dict[str, Any] | None = None, home: str | None = None,
                 system: Sequence[str] = (), real: Callable[[str], str] | None = None,
                 memo_dir: str | None = None) -> None:
        from cupcake_py.core.userdirs import home_dir

        self.state_paths = state_paths
        self.path_dirs = path_dirs
        self.project_root = project_root
        self.cwd = cwd
        self.settings = settings
        self.protected = protected
        self.sensitive = sensitive
        self.extension = extension or {}
        self.home = home or home_dir()
        self.system = system  # system_protection's additional_paths
        # os.path.realpath of a normalised absolute path; the evaluation's shared resolver
        # (engine/state_paths.py `Resolver`: each directory resolved once) when given
        self.real = real or os.path.realpath
        self.memo_dir = memo_dir  # where the secrets scan remembers unchanged directories (sandbox/scan_memo.py)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _real(real: Callable[[str], str], path: str) -> str:
    """os.path.realpath(path) through `real`, which takes normalised absolute paths: a `..`
    (resolved after the links before it) goes to os.path.realpath itself."""
    if ".." in path.split("/"):
        return os.path.realpath(path)
    return real(os.path.abspath(path))


def _paths(items: Iterable[Any], home: str, base: str) -> list[str]:
    """Strings as absolute paths: `~` expanded, relative ones below `base`."""
    from cupcake_py.core.userdirs import expand_home

    out = []
    for item in items:
        if isinstance(item, str) and item.strip():
            p = expand_home(item.strip(), home)
            out.append(os.path.normpath(p if os.path.isabs(p) else os.path.join(base, p)))
    return out


def python_environment() -> list[str]:
    """The Python running cupcake: prefixes, site-packages, user site, pyvenv.cfg, the interpreter."""
    out = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, os.path.join(sys.prefix, "pyvenv.cfg")]
    if sys.executable:
        out.append(sys.executable)
    out += [p for p in sys.path if p and os.path.isabs(p) and ("site-packages" in p or "dist-packages" in p)]
    import site

    out += [p for p in getattr(site, "getsitepackages", list)() if isinstance(p, str)]
    if site.ENABLE_USER_SITE and isinstance(site.USER_SITE, str):
        out.append(site.USER_SITE)
    return out


def repository(start: str) -> tuple[str, list[str], list[str]] | None:
    """(work tree, git dirs: the gitdir then the common dir, a `.git` file) of the repository
    containing `start`, else None."""
    d = start
    while True:
        dot = os.path.join(d, ".git")
        if os.path.isdir(dot):
            return d, [dot], []
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8") as f:
                    line = f.read(4096).strip()
            except (OSError, UnicodeDecodeError):
                return d, [], [dot]
            gitdir = line[len("gitdir:"):].strip() if line.startswith("gitdir:") else ""
            if not gitdir:
                return d, [], [dot]
            dirs = [os.path.normpath(os.path.join(d, gitdir))]
            try:
                with open(os.path.join(dirs[0], "commondir"), encoding="utf-8") as f:
                    dirs.append(os.path.normpath(os.path.join(dirs[0], f.read(4096).strip())))
            except (OSError, UnicodeDecodeError):
                pass
            return d, dirs, [dot]
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def git_paths(start: str, home: str | None = None) -> list[str]:
    """hooks/config/config.worktree/commondir of the repository containing `start` (worktrees:
    the gitdir's and the common dir's), and the directory `core.hooksPath` names in its config or
    the user's (`home`), where git runs hooks from instead (last)."""
    repo = repository(start)
    if repo is None:
        return []
    worktree, dirs, files = repo
    return files + [os.path.join(g, n) for g in dirs for n in GIT_PROTECTED] + hooks_paths(dirs, worktree, home)


def _config_hooks_path(path: str) -> str | None:
    """The last `core.hooksPath` value of one git config file (sections and keys in any case,
    quoted or not), else None."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read(1 << 20).splitlines()
    except OSError:
        return None
    section = ""
    found = None
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            section = line[1:line.find("]")].strip().lower() if "]" in line else ""
            line = line[line.find("]") + 1:].strip() if "]" in line else ""
        if section == "core" and "=" in line:
            key, value = line.split("=", 1)
            if key.strip().lower() == "hookspath":
                found = value.split(" #")[0].split(" ;")[0].strip().strip('"')
    return found


def hooks_paths(gitdirs: Sequence[str], worktree: str, home: str | None) -> list[str]:
    """The hooks directory `core.hooksPath` names (repository config over the user's), resolved
    as git does: `~/` below home, a relative path below the work tree."""
    from cupcake_py.core.userdirs import expand_home

    files = []
    if home:
        xdg = os.environ.get("XDG_CONFIG_HOME", "")
        files += [os.path.join(xdg if os.path.isabs(xdg) else os.path.join(home, ".config"), "git", "config"),
                  os.path.join(home, ".gitconfig")]
    files += [os.path.join(g, "config") for g in reversed(gitdirs)]
    value = None
    for f in files:  # later files win, as in git
        value = _config_hooks_path(f) or value
    if not value:
        return []
    p = expand_home(value, home) if home else value
    return [os.path.normpath(p if os.path.isabs(p) else os.path.join(worktree, p))]


def _protected_cover(patterns: Sequence[str], home: str, roots: Sequence[str]) -> tuple[list[str], bool]:
    """Concrete paths of the protected patterns, and whether every pattern was concrete."""
    out: list[str] = []
    complete = True
    for pattern in patterns:
        if pattern in (".cupcake/", ".cupcake"):  # the state paths hold every .cupcake cupcake reads
            continue
        p = concrete(pattern.rstrip("/") or pattern, home)
        if p is not None:
            out.append(p)
            continue
        complete = False
        if not any(c in pattern for c in "*?[") and not pattern.startswith("~"):
            out += [os.path.normpath(os.path.join(r, pattern)) for r in roots]  # relative: at least at the roots
    return out, complete


def _tool_present(tools: Sequence[str], path_dirs: Sequence[str], project_root: str) -> bool:
    """Whether one of `tools` is an executable in a PATH dir or in the project root (a wrapper
    script such as `./gradlew`)."""
    dirs = [d for d in path_dirs if d] + [project_root]
    return any(os.access(os.path.join(d, t), os.X_OK) for t in tools for d in dirs)


def writable_roots(project_root: str, settings: dict[str, Any], home: str,
                   extra: Sequence[Any] = (), real: Callable[[str], str] = os.path.realpath,
                   path_dirs: Sequence[str] | None = None) -> list[str]:
    """The writable roots (resolved, existing directories): the project root, $TMPDIR (TMP,
    TEMP), `settings.writable` (missing ones below the home directory are created: a cache a tool
    would create on first use; for the caches of `CACHE_TOOLS`, only when one of its tools is on
    `path_dirs` (default: $PATH) or in the project root) and `extra`."""
    from cupcake_py.core.userdirs import expand_home

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
        if tools is not None and not os.path.exists(p) and not _tool_present(tools, path_dirs, project_root):
            continue  # no tool here fills it: no directory to create, no bind
        if not os.path.exists(p) and _under(p, home) and p != home:
            try:
                os.makedirs(p, mode=0o700, exist_ok=True)
            except OSError:
                continue
        wanted.append(p)
    wanted += _paths(extra, home, project_root)
    out: list[str] = []
    for p in wanted:
        r = _real(real, p)
        if os.path.isdir(r) and r != "/" and r not in out:
            out.append(r)
    return out


def _pinned(paths: Sequence[str], writable: Sequence[str], guarded: Sequence[str]) -> list[str]:
    """The directories between a writable root and a read-only or hidden path inside it: each
    becomes a mount point of its own (bound writable onto itself), which cannot be renamed or
    removed, so a protected path cannot be moved away with its parent and replaced
    (`mv .git .g && mkdir .git`), nor a hidden one moved where a profile computed before (a
    command waiting for approval) does not hide it."""
    out: set[str] = set()
    for r in paths:
        root = max((w for w in writable if _under(r, w) and r != w), key=len, default=None)
        if root is None:
            continue
        d = os.path.dirname(r)
        while d != root and _under(d, root) and d not in out:
            out.add(d)
            d = os.path.dirname(d)
    return sorted(d for d in out if not any(_under(d, g) for g in guarded))


def compute(src: Sources) -> dict[str, Any]:
    home = src.home
    roots = list(dict.fromkeys(r for r in (src.project_root, src.cwd) if r and os.path.isabs(r)))
    settings = src.settings
    real = src.real
    writable = writable_roots(src.project_root, settings, home, src.extension.get("writable", []), real, src.path_dirs)

    ro: list[str] = []
    hidden: list[str] = []
    for sp in src.state_paths:
        path = sp.get("path")
        if isinstance(path, str):
            (hidden if sp.get("read_protected") else ro).append(path)
    ro += python_environment()
    creatable: set[str] = set()  # absent when missing, whatever their name or directory: git's hooks dir, PATH's cupcake
    for root in roots:
        ro += [os.path.join(root, n) for n in AGENT_CONFIG_DIRS + AGENT_CONFIG_FILES + HOOK_FILES]
        repo = repository(root)
        if repo is not None:
            ro += repo[2] + [os.path.join(g, n) for g in repo[1] for n in GIT_PROTECTED]
            hooks = hooks_paths(repo[1], repo[0], home)
            ro += hooks
            creatable.update(hooks)
    ro += [os.path.join(home, n) for n in HOME_AGENT_CONFIG + HOME_PERSISTENCE]
    claude_dir = os.environ.get("CLAUDE_CONFIG_DIR", "")
    if os.path.isabs(claude_dir):
        ro.append(claude_dir)
    path_cupcakes = [os.path.join(d, "cupcake") for d in src.path_dirs]
    ro += path_cupcakes
    creatable.update(os.path.normpath(p) for p in path_cupcakes)
    protected, protected_complete = _protected_cover(src.protected, home, roots)
    ro += protected
    system, system_complete = _protected_cover(src.system, home, roots)
    ro += system
    ro += _paths(settings.get("read_only", []), home, src.project_root)
    ro += _paths(src.extension.get("read_only", []), home, src.project_root)

    secrets, secrets_complete = hidden_paths(home, roots, src.sensitive, src.memo_dir)
    hidden += secrets
    from cupcake_py.sandbox.sockets import outside_sockets

    hidden += outside_sockets(os.environ)
    hidden += _paths(settings.get("hidden", []), home, src.project_root)
    hidden += _paths(src.extension.get("hidden", []), home, src.project_root)

    hidden_real = sorted({_real(real, p) for p in hidden if os.path.lexists(p)})
    hidden_real = [h for h in hidden_real if not any(_under(h, o) and h != o for o in hidden_real)]  # covered
    ro_real: set[str] = set()
    absent: set[str] = set()
    for p in ro:
        r = _real(real, os.path.normpath(p))
        if not any(_under(r, w) for w in writable):
            continue  # outside every writable root: read-only already
        if os.path.lexists(r):
            ro_real.add(r)
        elif os.path.basename(r) in ABSENT_NAMES and os.path.isdir(os.path.dirname(r)):
            absent.add(r)
        elif os.path.normpath(p) in creatable:  # even when its directory is missing too (made by the command)
            absent.add(r)
    guarded = sorted(ro_real) + hidden_real
    writable = [w for w in writable if not any(_under(w, g) for g in guarded)]
    writable = [w for w in writable if not any(_under(w, o) and w != o for o in writable)]  # inside another: one bind
    read_only = sorted(r for r in ro_real if not any(_under(r, h) and r != h for h in hidden_real)
                       and r not in hidden_real)
    # inside another read-only path: that one's bind holds it (no writable root lies between them:
    # a writable root inside a guarded path was dropped above)
    read_only = [r for r in read_only if not any(_under(r, o) and r != o for o in read_only)]
    inside = [h for h in hidden_real if any(_under(h, _real(real, r)) for r in roots)]  # the project's secrets, not sockets
    pinned = _pinned(read_only + inside, writable, guarded)
    shared = bool(settings.get("share_processes", False))
    return {
        "version": PROFILE_VERSION,
        "writable": sorted(writable),
        "read_only": read_only,
        "hidden": hidden_real,
        "absent": [{"path": p} for p in sorted(absent) if not any(_under(p, h) for h in hidden_real)],
        "pinned": pinned,
        "unset_env": secret_environment(os.environ, settings.get("pass_env", [])),
        "network": bool(settings.get("network", True)),
        "share_processes": shared,
        # With shared processes a command reaches every process of the user, and through
        # /proc/<pid>/root their view of the file system, mounts and all: the floor covers nothing.
        "covers": {"state_paths": not shared, "system": system_complete and not shared,
                   "secrets": secrets_complete and not shared, "protected_paths": protected_complete and not shared},
    }
