"""Cupcake's own state: the paths an agent must not touch to switch the policies off.

In: the project config dir (or None), the global config dir in use (or None), the event's
working directory, and the process environment (XDG_*, HOME, PATH, OPENCODE_CONFIG(_DIR)).
Out: `guardrails_input(...)` → the two fields the engine adds to
`input.builtin_config.rulebook_security_guardrails` (docs/SHELL_CONTRACT, issue 15):

- `state_paths`: [{path (absolute; when the path resolves elsewhere through a symbolic link the
  resolved path is listed too), kind, dir, read_protected}] with kind one of
  config (project `.cupcake/`, global config dirs, the org tier's directory (docs/fleet.md), the shipped policies), cache (bundle and
  native-code caches), key (the cache MAC key: read_protected), plugin (OpenCode plugin and
  custom-tool dirs, project and global, and $OPENCODE_CONFIG_DIR), agent_config (opencode.json /
  opencode.jsonc, project and global, and $OPENCODE_CONFIG; Claude Code's `.claude/` and
  `.mcp.json` of the project, `~/.claude/`, `~/.claude.json`, $CLAUDE_CONFIG_DIR and the managed
  settings in /etc/claude-code; the hook configuration of the other agents: `.github/hooks/`,
  `.factory/`, `.clinerules/hooks/`, `.cursor/hooks.json`, `.codex/`, `.gemini/`, `.qwen/` of the project,
  `~/.copilot/`, `~/.factory/`, `~/.cline/`, `~/.cursor/`, `~/.codex/`, `~/.gemini/`, `~/.qwen/`), executable (the running cupcake
  entry point and its interpreter, the `cupcake` found on PATH, custom builtin modules named by
  a `.py` path, the cupcake_py package and the
  shipped policies, except when they lie inside the project: a checkout of cupcake-py being
  developed), the Python environment running it (site-packages, the user site, `pyvenv.cfg`:
  `python_environment()`), state ($XDG_STATE_HOME/cupcake-py); OpenCode's package cache
  ($XDG_CACHE_HOME/opencode: the npm plugins it loads) as plugin; every `.cupcake` between the
  working directory and the project root (discovery would find a new one first) as config.
- `path_dirs`: the directories on PATH, a relative (or empty) entry below the working directory
  (creating or replacing a file named `cupcake`
  in one of them is a violation: the plugin runs the first `cupcake` on PATH).

Computed per evaluation from strings plus lstat calls (no directory listing); never raises: a path that cannot be resolved is listed as written. The
paths share most of their parent directories, so one evaluation resolves each directory once
(`Resolver`: the answers of `os.path.realpath`, with one lstat per distinct path component
instead of one per component of every path). `cupcake serve` passes a resolver that keeps the
link-free answers across evaluations while an inotify watch on the directories holding those
names saw nothing (see `Resolver`); everything else is computed afresh per evaluation.
"""

from __future__ import annotations

import os
import stat
import sys

from cupcake_py.core.cache_mac import key_path
from cupcake_py.core.userdirs import (
    global_config_dir,
    home_dir,
    org_config_dir,
    user_cache_dir,
    user_state_dir,
)
from cupcake_py.engine.project import PACKAGE_DIR, shipped_policies_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from cupcake_py.engine.project import ConfigDir
    from cupcake_py.engine.watch import EntryWatch

OPENCODE_PLUGIN_DIRS = ("plugin", "plugins", "tool", "tools")  # loaded by OpenCode from every config dir
OPENCODE_CONFIG_FILES = ("opencode.json", "opencode.jsonc", "config.json")
# Claude Code loads settings, hooks, commands, agents and MCP servers from these (issue 27).
CLAUDE_PROJECT_CONFIG = ((".claude", True), (".mcp.json", False))
CLAUDE_HOME_CONFIG = ((".claude", True), (".claude.json", False))
CLAUDE_MANAGED = "/etc/claude-code"
# The hook configuration of the other agents cupcake answers (cupcake_py/harness/): an agent that could
# rewrite or delete these would switch its own hooks off. (name, is_dir), below the project root and home.
HOOK_AGENT_PROJECT_CONFIG = ((".github/hooks", True), (".factory", True), (".clinerules/hooks", True),
                             (".cursor/hooks.json", False), (".codex", True), (".gemini", True), (".qwen", True))
HOOK_AGENT_HOME_CONFIG = ((".copilot", True), (".factory", True), (".cline", True), (".cursor", True),
                          (".codex", True), (".gemini", True), (".qwen", True))


def _opencode_global_dir() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home_dir(), ".config")
    return os.path.join(os.path.normpath(base), "opencode")


class Resolver:
    """`os.path.realpath` of normalised absolute paths, each parent directory resolved once.

    A path whose parent resolved to itself (no symbolic link on the way, as lstat saw it) and
    which is not a symbolic link itself is its own real path ("plain"): what realpath computes
    from the same lstat answers. Anything else (a link anywhere) is handed to `os.path.realpath`
    whole, so links, loops and missing components resolve exactly as there, and is remembered
    for one evaluation only (`begin` forgets it: a link's target can change anywhere).

    With a `watch` (engine/watch.py `EntryWatch`, `cupcake serve`), plain answers are kept
    across evaluations: the directory holding the name is watched before its lstat, so any
    change that could alter the answer (an entry created, removed, renamed, re-permissioned;
    a mount) ends the watch's quiet, and the owner (engine/warm.py) then starts a new resolver.
    Without one, a resolver lives for one evaluation."""

    __slots__ = ("_plain", "_links", "watch")

    def __init__(self, watch: EntryWatch | None = None) -> None:
        self._plain: set[str] = {"/"}  # paths that are their own real path
        self._links: dict[str, str] = {}  # path -> real path, where a link is on the way (this evaluation)
        self.watch = watch

    def begin(self) -> None:
        """Start an evaluation: forget what was learnt through symbolic links."""
        self._links = {}

    def size(self) -> int:
        return len(self._plain)

    def _resolve(self, path: str) -> tuple[str, bool]:
        if path in self._plain:
            return path, True
        real = self._links.get(path)
        if real is not None:
            return real, False
        parent, _ = os.path.split(path)
        plain = False
        if parent != path:  # else a root other than "/" ("//" stays as written in normpath)
            if self._resolve(parent)[1]:
                if self.watch is not None:
                    self.watch.add(parent)  # before the lstat: a change from now on is an event
                try:
                    plain = not stat.S_ISLNK(os.lstat(path).st_mode)
                except OSError:  # missing or not a directory on the way: no link there (realpath's view too)
                    plain = True
        if plain:
            self._plain.add(path)
            return path, True
        real = self._links[path] = os.path.realpath(path)
        return real, False

    def real(self, path: str) -> str:
        """The real path of `path` (absolute and normalised)."""
        return self._resolve(path)[0]


class _Collector:
    __slots__ = ("out", "seen", "resolver")

    def __init__(self, resolver: Resolver) -> None:
        self.out: list[dict[str, Any]] = []
        self.seen: set[str] = set()
        self.resolver = resolver

    def add(self, path: str, kind: str, is_dir: bool, read_protected: bool = False) -> None:
        p = os.path.abspath(path)  # normalised too
        for q in (p, self.resolver.real(p)):
            if q not in self.seen:
                self.seen.add(q)
                self.out.append({"path": q, "kind": kind, "dir": is_dir, "read_protected": read_protected})

    def opencode_dir(self, d: str) -> None:
        """An OpenCode config dir: its plugin/tool dirs and its config files."""
        for sub in OPENCODE_PLUGIN_DIRS:
            self.add(os.path.join(d, sub), "plugin", True)
        for name in OPENCODE_CONFIG_FILES:
            self.add(os.path.join(d, name), "agent_config", False)


def _executables(dirs: list[str]) -> list[str]:
    """The running entry point (as invoked and resolved) and the first `cupcake` on PATH."""
    out: list[str] = []
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if argv0 and argv0 != "-c" and os.path.basename(argv0) != "__main__.py":
        out.append(argv0)
    if sys.executable:
        out.append(sys.executable)  # the interpreter the entry point runs on
    for d in dirs:
        candidate = os.path.join(d, "cupcake")
        if os.path.exists(candidate):
            out.append(candidate)
            break
    return out


def python_environment() -> list[tuple[str, bool]]:
    """(path, is_dir) of the Python environment running cupcake, where a new file changes what
    it runs: its site-packages and dist-packages dirs (a `.pth` or `sitecustomize.py` there), the
    user site when enabled (created or not) and the venv's `pyvenv.cfg`."""
    out = [(p, True) for p in sys.path if p and os.path.isabs(p) and p.endswith(("site-packages", "dist-packages"))]
    site = sys.modules.get("site")  # imported at start-up unless -S: not imported here
    user_site = getattr(site, "USER_SITE", None) if getattr(site, "ENABLE_USER_SITE", False) else None
    if isinstance(user_site, str) and (user_site, True) not in out:
        out.append((user_site, True))
    if sys.prefix != sys.base_prefix:
        out.append((os.path.join(sys.prefix, "pyvenv.cfg"), False))
    return out


def path_dirs() -> list[str]:
    """PATH's directories, absolute: a relative entry (an empty one is `.`) below the working
    directory, where the harness's own lookup of `cupcake` resolves it too (it runs cupcake, and
    the shell its hooks run in, from the project)."""
    out: list[str] = []
    try:
        cwd: str | None = os.getcwd()
    except OSError:
        cwd = None
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isabs(d or "."):
            if cwd is None:
                continue
            d = os.path.join(cwd, d or ".")
        d = os.path.normpath(d)
        if d not in out:
            out.append(d)
    return out


def state_paths(project: ConfigDir | None, glob: ConfigDir | None, cwd: str,
                code: Sequence[str] = (), dirs: list[str] | None = None,
                resolver: Resolver | None = None) -> list[dict[str, Any]]:
    """`code`: files of Python code the evaluation runs (custom builtin modules named by path);
    `dirs`: `path_dirs()` when the caller has them; `resolver`: one that may remember plain
    paths from earlier evaluations (else a new one)."""
    c = _Collector(Resolver() if resolver is None else resolver)
    roots = [project.root_path] if project is not None else []
    if cwd and os.path.isabs(cwd) and cwd not in roots:
        roots.append(cwd)
    if project is not None:
        c.add(project.cupcake_path, "config", True)
        d = os.path.dirname(cwd) if cwd and os.path.isabs(cwd) else ""
        while d.startswith(project.root_path.rstrip("/") + "/"):  # a `.cupcake` made here would be found first
            c.add(os.path.join(d, ".cupcake"), "config", True)
            d = os.path.dirname(d)
    for root in roots:
        c.add(os.path.join(root, ".cupcake"), "config", True)
        c.opencode_dir(os.path.join(root, ".opencode"))
        for name in OPENCODE_CONFIG_FILES[:2]:
            c.add(os.path.join(root, name), "agent_config", False)
        for name, is_dir in CLAUDE_PROJECT_CONFIG + HOOK_AGENT_PROJECT_CONFIG:
            c.add(os.path.join(root, name), "agent_config", is_dir)
    home = home_dir()
    for name, is_dir in CLAUDE_HOME_CONFIG + HOOK_AGENT_HOME_CONFIG:
        c.add(os.path.join(home, name), "agent_config", is_dir)
    claude_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    if claude_dir and os.path.isabs(claude_dir):
        c.add(claude_dir, "agent_config", True)
    c.add(CLAUDE_MANAGED, "agent_config", True)
    c.add(global_config_dir(), "config", True)
    if glob is not None:
        c.add(glob.cupcake_path, "config", True)
    c.add(org_config_dir(), "config", True)  # the org tier; its activated bundles live in the state dir below
    c.add(key_path(), "key", False, read_protected=True)
    c.add(os.path.dirname(user_cache_dir("bundles")), "cache", True)
    c.add(user_state_dir(), "state", True)
    c.opencode_dir(_opencode_global_dir())
    # OpenCode installs the npm plugins its config names (and its providers) here and loads them
    c.add(os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "opencode"), "plugin", True)
    extra_dir = os.environ.get("OPENCODE_CONFIG_DIR")
    if extra_dir and os.path.isabs(extra_dir):
        c.opencode_dir(extra_dir)
    extra_file = os.environ.get("OPENCODE_CONFIG")
    if extra_file and os.path.isabs(extra_file):
        c.add(extra_file, "agent_config", False)
    for exe in _executables(path_dirs() if dirs is None else dirs):
        c.add(exe, "executable", False)
    for f in code:
        c.add(f, "executable", False)
    for path, is_dir in python_environment():
        c.add(path, "executable", is_dir)
    # The engine's code and shipped policies, unless the project IS a checkout of cupcake-py
    # (developing cupcake-py under cupcake: its sources are the project's ordinary files).
    inside = tuple(r.rstrip("/") + "/" for r in roots)
    for path, kind in ((PACKAGE_DIR, "executable"), (shipped_policies_path(), "config")):
        if not (path + "/").startswith(inside):
            c.add(path, kind, True)
    return c.out


def guardrails_input(project: ConfigDir | None, glob: ConfigDir | None, cwd: str,
                     code: Sequence[str] = (), resolver: Resolver | None = None) -> dict[str, Any]:
    dirs = path_dirs()
    return {"state_paths": state_paths(project, glob, cwd, code, dirs, resolver), "path_dirs": dirs}
