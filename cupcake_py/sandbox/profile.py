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
  git's `hooks`, `config`, `config.worktree`, `commondir`, the config files they include, the
  existing submodules' `config` and `hooks`, the `core.hooksPath` directory, the hook files `.husky` and
  `.pre-commit-config.yaml`, the concrete protected paths, each PATH dir's `cupcake`, `git`, `bash`, `sh`, `rg`
  (PATH_PROGRAMS),
  `settings.read_only` and the extension's.
- `pinned`: the directories between a writable root and a read-only path, or a hidden one below
  the project, inside it (`.git` for `.git/hooks`): bound onto themselves, so they cannot be
  renamed or removed and the path cannot be moved away with its parent and replaced.
- `hidden`: paths shown empty (a read-only empty file or directory over them): the sensitive set
  (sandbox/secrets.py), read-protected state paths (the cache MAC key), sockets of processes that
  run outside the sandbox (sandbox/sockets.py: container engines, terminal multiplexers, the SSH
  agent, the user's runtime dir, sockets named in the environment, this user's listening
  sockets), `settings.hidden` and the extension's.
- `absent`: read-only entries inside a writable root that do not exist yet (any of them: agent
  configuration, `.cupcake` between the working directory and the project root, the other
  agents' hook files, a PATH dir's programs, git's `hooks` or `commondir`, a protected path not
  created yet, `settings.read_only`, a policy's read-only path). A mount would need a visible
  mount point, so instead the wrapper removes whatever the command created there once the
  sandbox has ended (its pid namespace ends with it, so no sandboxed process is left to create
  it again); one inside another is left out (the removal of the outer one takes it).
- `links`: the symbolic links on the way to a read-only path that lie in a writable root
  (`.claude` a link into a dotfiles checkout): {path, text, target}; the wrapper puts a link back
  when the command replaced it (a mount holds the link's target, not the link).
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

from cupcake_py.sandbox.lookups import Lookups
from cupcake_py.sandbox.secrets import concrete, fixed_secrets, secret_environment
from cupcake_py.sandbox.sources import STATE_PATTERNS, Sources, covers, python_environment, scan, sockets
from cupcake_py.sandbox.writable import paths, real, under, writable_roots

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

PROFILE_VERSION = 1
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
# Programs looked up on PATH that run outside the sandbox (tables.rego guard_path_programs): cupcake
# itself, git (cupcake's enrichment, the agents' snapshots), the shells a harness runs a command line
# with, ripgrep (the agents' search tools). Read-only (absent: removed) in a PATH dir inside a writable
# root, such as an activated `.venv/bin` or `node_modules/.bin`.
PATH_PROGRAMS = ("cupcake", "cupcake-py", "git", "bash", "sh", "rg")
SYSTEM_GIT_CONFIG = "/etc/gitconfig"  # git's system config ($(prefix)/etc/gitconfig; Debian's and most distributions')


def _text(fs: Lookups, path: str, limit: int) -> str | None:
    """The first `limit` bytes of a file as UTF-8 (invalid bytes replaced), None when it cannot be read."""
    data = fs.read(path, limit)
    return None if data is None else data.decode("utf-8", "replace")


def repository(start: str, fs: Lookups | None = None) -> tuple[str, list[str], list[str]] | None:
    """(work tree, git dirs: the gitdir then the common dir, a `.git` file) of the repository
    containing `start`, else None."""
    fs = fs or Lookups()
    d = start
    while True:
        dot = os.path.join(d, ".git")
        if fs.isdir(dot):
            return d, [dot], []
        if fs.isfile(dot):
            data = fs.read(dot, 4096)
            try:
                line = (data or b"").decode("utf-8").strip()
            except UnicodeDecodeError:
                data = None
            if data is None:
                return d, [], [dot]
            gitdir = line[len("gitdir:"):].strip() if line.startswith("gitdir:") else ""
            if not gitdir:
                return d, [], [dot]
            dirs = [os.path.normpath(os.path.join(d, gitdir))]
            common = fs.read(os.path.join(dirs[0], "commondir"), 4096)
            try:
                if common is not None:
                    dirs.append(os.path.normpath(os.path.join(dirs[0], common.decode("utf-8").strip())))
            except UnicodeDecodeError:
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
    fs = Lookups()
    repo = repository(start, fs)
    if repo is None:
        return []
    worktree, dirs, files = repo
    return files + [os.path.join(g, n) for g in dirs for n in GIT_PROTECTED] + hooks_paths(dirs, worktree, home, fs)


def _config_read(path: str, home: str | None, fs: Lookups) -> tuple[str | None, list[str]]:
    """(the last `core.hooksPath` value, the files its `include.path` / `includeIf.*.path` name,
    resolved as git does: `~/` below home, relative to the file's directory) of one git config
    file (sections and keys in any case, quoted or not); (None, []) when it cannot be read."""
    from cupcake_py.core.userdirs import expand_home

    text = _text(fs, path, 1 << 20)
    if text is None:
        return None, []
    lines = text.splitlines()
    section = ""
    found = None
    includes: list[str] = []
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            section = line[1:line.find("]")].strip().lower() if "]" in line else ""
            line = line[line.find("]") + 1:].strip() if "]" in line else ""
        if "=" not in line:
            continue
        key, value = line.split("=", 1)
        key = key.strip().lower()
        value = value.split(" #")[0].split(" ;")[0].strip().strip('"')
        if section == "core" and key == "hookspath":
            found = value
        elif key == "path" and value and (section == "include" or section.startswith("includeif")):
            p = expand_home(value, home) if home else value
            includes.append(os.path.normpath(p if os.path.isabs(p) else os.path.join(os.path.dirname(path), p)))
    return found, includes


def _config_chain(files: Sequence[str], home: str | None, fs: Lookups) -> list[tuple[str, str | None]]:
    """(file, its core.hooksPath) of `files` and of the files they include (whatever an
    includeIf's condition: it may hold later), each included one right after its includer."""
    out: list[tuple[str, str | None]] = []
    seen: set[str] = set()

    def visit(f: str, depth: int) -> None:
        if f in seen or depth > 10:  # git stops at 10 levels too
            return
        seen.add(f)
        value, includes = _config_read(f, home, fs)
        out.append((f, value))
        for inc in includes:
            visit(inc, depth + 1)

    for f in files:
        visit(f, 0)
    return out


def git_config_files(gitdirs: Sequence[str], home: str | None, fs: Lookups) -> list[tuple[str, str | None]]:
    """The config files git reads for the repository, in git's order: the system's
    (`$GIT_CONFIG_SYSTEM`, else /etc/gitconfig; none with `$GIT_CONFIG_NOSYSTEM`), the user's
    (`$GIT_CONFIG_GLOBAL`, else the XDG one and ~/.gitconfig), the common dir's and the gitdir's,
    then the worktree's `config.worktree` (read with extensions.worktreeConfig: read whatever that
    says, it may be set later), with the files they include, each with its core.hooksPath value."""
    env = os.environ
    files = []
    if env.get("GIT_CONFIG_NOSYSTEM", "").strip().lower() not in ("1", "true", "yes", "on"):
        files.append(env.get("GIT_CONFIG_SYSTEM") or SYSTEM_GIT_CONFIG)
    if "GIT_CONFIG_GLOBAL" in env:
        files += [env["GIT_CONFIG_GLOBAL"]] if env["GIT_CONFIG_GLOBAL"] else []
    elif home:
        xdg = env.get("XDG_CONFIG_HOME", "")
        files += [os.path.join(xdg if os.path.isabs(xdg) else os.path.join(home, ".config"), "git", "config"),
                  os.path.join(home, ".gitconfig")]
    files += [os.path.join(g, "config") for g in reversed(gitdirs)]
    files += [os.path.join(g, "config.worktree") for g in gitdirs[:1]]
    return _config_chain(files, home, fs)


def env_hooks_paths(env: Mapping[str, str]) -> list[str]:
    """The core.hooksPath values set in the environment, which git applies after every config
    file: `$GIT_CONFIG_COUNT` with `$GIT_CONFIG_KEY_<n>`/`$GIT_CONFIG_VALUE_<n>`, and
    `$GIT_CONFIG_PARAMETERS` (what `git -c` hands its children: shell-quoted `'key'='value'` or
    `'key=value'` words).
    Each is protected (which one wins depends on the order git reads them in)."""
    out: list[str] = []
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
    except ValueError:
        count = 0
    for i in range(max(0, min(count, 1000))):
        if env.get(f"GIT_CONFIG_KEY_{i}", "").lower() == "core.hookspath" and env.get(f"GIT_CONFIG_VALUE_{i}"):
            out.append(env[f"GIT_CONFIG_VALUE_{i}"])
    params = env.get("GIT_CONFIG_PARAMETERS", "")
    if params:
        import shlex  # only here: git quotes each key and value as a shell word (sq_quote)

        try:
            words = shlex.split(params)
        except ValueError:
            words = []
        for word in words:  # 'key'='value' or 'key=value': either way one shell word `key=value`
            key, _, value = word.partition("=")
            if key.lower() == "core.hookspath" and value:
                out.append(value)
    return out


def hooks_paths(gitdirs: Sequence[str], worktree: str, home: str | None, fs: Lookups,
                chain: list[tuple[str, str | None]] | None = None) -> list[str]:
    """The hooks directories git may run hooks from instead of the git dir's `hooks`: the one
    `core.hooksPath` names in the config files (the last file that sets it wins, as in git) and
    each one the environment sets (`env_hooks_paths`), resolved as git does: `~/` below home, a
    relative path below the work tree."""
    from cupcake_py.core.userdirs import expand_home

    value = None
    for _, v in git_config_files(gitdirs, home, fs) if chain is None else chain:  # later files win, as in git
        value = v or value
    out = []
    for v in ([value] if value else []) + env_hooks_paths(os.environ):
        p = expand_home(v, home) if home else v
        out.append(os.path.normpath(p if os.path.isabs(p) else os.path.join(worktree, p)))
    return out


def submodule_git_paths(worktree: str, gitdirs: Sequence[str], fs: Lookups) -> list[str]:
    """`config` and `hooks` of the repository's existing submodules: `git status` in the project
    enters each (its `core.fsmonitor`, `filter.*.clean` run): the git dirs below `modules/` of the
    common dir (nested submodules too, three levels) and a `.git` directory at a path `.gitmodules`
    names (an old-style submodule). A submodule added later is a repository the command made
    (docs/security.md)."""
    out: list[str] = []
    stack = [(os.path.join(g, "modules"), 0) for g in gitdirs[-1:]]
    while stack:
        d, depth = stack.pop()
        names = fs.listdir(d)
        if names is None:
            continue
        for name in names:
            sub = os.path.join(d, name)
            if fs.isfile(os.path.join(sub, "HEAD")):  # a git dir (a name may hold a path: modules/a/b)
                out += [os.path.join(sub, "config"), os.path.join(sub, "hooks")]
                if depth < 2:
                    stack.append((os.path.join(sub, "modules"), depth + 1))
            elif depth < 2 and fs.isdir(sub):
                stack.append((sub, depth + 1))
    text = _text(fs, os.path.join(worktree, ".gitmodules"), 1 << 20)
    if text is None:
        return out
    for line in text.splitlines():
        key, _, value = line.strip().partition("=")
        if key.strip().lower() == "path" and value.strip():
            dot = os.path.normpath(os.path.join(worktree, value.strip().strip('"'), ".git"))
            if dot.startswith(worktree.rstrip("/") + "/") and fs.isdir(dot):
                out += [os.path.join(dot, "config"), os.path.join(dot, "hooks")]
    return out


def _protected_cover(patterns: Sequence[str], home: str, roots: Sequence[str]) -> list[str]:
    """Concrete paths of the protected patterns (sandbox/sources.py `covers`: whether that is all of them)."""
    out: list[str] = []
    for pattern in patterns:
        if pattern in STATE_PATTERNS:  # the state paths hold every .cupcake cupcake reads
            continue
        p = concrete(pattern.rstrip("/") or pattern, home)
        if p is not None:
            out.append(p)
            continue
        if not any(c in pattern for c in "*?[") and not pattern.startswith("~"):
            out += [os.path.normpath(os.path.join(r, pattern)) for r in roots]  # relative: at least at the roots
    return out


def _pinned(paths: Sequence[str], writable: Sequence[str], guarded: Sequence[str]) -> list[str]:
    """The directories between a writable root and a read-only or hidden path inside it: each
    becomes a mount point of its own (bound writable onto itself), which cannot be renamed or
    removed, so a protected path cannot be moved away with its parent and replaced
    (`mv .git .g && mkdir .git`), nor a hidden one moved where a profile computed before (a
    command waiting for approval) does not hide it."""
    out: set[str] = set()
    for r in paths:
        root = max((w for w in writable if under(r, w) and r != w), key=len, default=None)
        if root is None:
            continue
        d = os.path.dirname(r)
        while d != root and under(d, root) and d not in out:
            out.add(d)
            d = os.path.dirname(d)
    return sorted(d for d in out if not any(under(d, g) for g in guarded))


def _links(paths: Sequence[str], writable: Sequence[str], guarded: Sequence[str], fs: Lookups) -> list[dict[str, str]]:
    """The symbolic links on the way to protected paths that lie in a writable root (not inside
    a protected path): {path (its location, parents resolved), text (what it says), target (where
    it leads)}. A mount holds the target, not the link, which the command could replace (`.claude`
    a link into a dotfiles checkout: `rm .claude && mkdir .claude`); the launcher puts it back."""
    out: dict[str, dict[str, str]] = {}
    for p in paths:
        a = p
        while a != os.path.dirname(a):
            text = fs.readlink(a)
            if text is not None:
                where = os.path.join(fs.real(os.path.dirname(a)), os.path.basename(a))
                target = fs.real(a)
                if (where not in out and fs.exists(target) and any(under(where, w) and where != w for w in writable)
                        and not any(under(where, g) for g in guarded)):
                    out[where] = {"path": where, "text": text, "target": target}
            a = os.path.dirname(a)
    return [out[k] for k in sorted(out)]


def compute(src: Sources) -> dict[str, Any]:
    home = src.home
    roots = list(dict.fromkeys(r for r in (src.project_root, src.cwd) if r and os.path.isabs(r)))
    settings = src.settings
    fs = src.fs
    writable = writable_roots(src.project_root, settings, home, src.extension.get("writable", []), fs, src.path_dirs)

    ro: list[str] = []
    hidden: list[str] = []
    for sp in src.state_paths:
        path = sp.get("path")
        if isinstance(path, str):
            (hidden if sp.get("read_protected") else ro).append(path)
    ro += python_environment()
    for root in roots:
        ro += [os.path.join(root, n) for n in AGENT_CONFIG_DIRS + AGENT_CONFIG_FILES + HOOK_FILES]
        repo = repository(root, fs)
        if repo is not None:
            ro += repo[2] + [os.path.join(g, n) for g in repo[1] for n in GIT_PROTECTED]
            chain = git_config_files(repo[1], home, fs)
            ro += hooks_paths(repo[1], repo[0], home, fs, chain)
            ro += [f for f, _ in chain]  # with the files they include
            ro += submodule_git_paths(repo[0], repo[1], fs)
    ro += [os.path.join(home, n) for n in HOME_AGENT_CONFIG + HOME_PERSISTENCE]
    claude_dir = os.environ.get("CLAUDE_CONFIG_DIR", "")
    if os.path.isabs(claude_dir):
        ro.append(claude_dir)
    ro += [os.path.join(d, n) for d in src.path_dirs for n in PATH_PROGRAMS]
    protected = _protected_cover(src.protected, home, roots)
    ro += protected
    system = _protected_cover(src.system, home, roots)
    ro += system
    ro += paths(settings.get("read_only", []), home, src.project_root)
    ro += paths(src.extension.get("read_only", []), home, src.project_root)

    hidden += fixed_secrets(home, src.sensitive)[0]
    if src.scan is None:
        src.scan = scan(src)
    hidden += src.scan[0]
    if src.sockets is None:
        src.sockets = sockets()
    hidden += src.sockets
    hidden += paths(settings.get("hidden", []), home, src.project_root)
    hidden += paths(src.extension.get("hidden", []), home, src.project_root)

    hidden_real = sorted({real(fs, p) for p in hidden if fs.lexists(os.path.normpath(p))})
    hidden_real = [h for h in hidden_real if not any(under(h, o) and h != o for o in hidden_real)]  # covered
    ro_real: set[str] = set()
    absent: set[str] = set()
    linked: list[str] = []
    for p in ro:
        n = os.path.normpath(p)
        r = real(fs, n)
        if r != n:
            linked.append(n)
        if not any(under(r, w) for w in writable):
            continue  # outside every writable root: read-only already
        if fs.lexists(r):
            ro_real.add(r)
        else:  # whatever its name or whether its directory exists: its creation is what the mount would stop
            absent.add(r)
    guarded = sorted(ro_real) + hidden_real
    writable = [w for w in writable if not any(under(w, g) for g in guarded)]
    writable = [w for w in writable if not any(under(w, o) and w != o for o in writable)]  # inside another: one bind
    read_only = sorted(r for r in ro_real if not any(under(r, h) and r != h for h in hidden_real)
                       and r not in hidden_real)
    # inside another read-only path: that one's bind holds it (no writable root lies between them:
    # a writable root inside a guarded path was dropped above)
    read_only = [r for r in read_only if not any(under(r, o) and r != o for o in read_only)]
    inside = [h for h in hidden_real if any(under(h, real(fs, r)) for r in roots)]  # the project's secrets, not sockets
    pinned = _pinned(read_only + inside, writable, guarded)
    shared = bool(settings.get("share_processes", False))
    absent_paths = sorted(p for p in absent if not any(under(p, h) for h in hidden_real))
    absent_paths = [p for p in absent_paths if not any(under(p, o) and p != o for o in absent_paths)]  # rm -r holds it
    return {
        "version": PROFILE_VERSION,
        "writable": sorted(writable),
        "read_only": read_only,
        "hidden": hidden_real,
        "absent": [{"path": p} for p in absent_paths],
        "links": _links(linked, writable, read_only + hidden_real, fs),
        "pinned": pinned,
        "unset_env": secret_environment(os.environ, settings.get("pass_env", [])),
        "network": bool(settings.get("network", True)),
        "share_processes": shared,
        # With shared processes a command reaches every process of the user, and through
        "covers": covers(src),
    }

