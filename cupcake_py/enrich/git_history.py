"""`input.git_history`: the secret-looking paths a repository tracks or has ever tracked, when a
Bash command prints content from its history.

In:  the policy input of a Bash event whose `shell.git` has entries with `history: true` (git
     log -p, show, diff against a revision, format-patch, grep on revisions, cat-file, archive,
     bundle, fast-export, blame …; cupcake_py/shell/git.py decides), and builtin_config holding
     `sensitive_data_protection` (only then is it computed).
Out: `input.git_history = {"repositories": [{"work_tree", "git_dir", "paths", "complete",
     "reason"}]}`: `paths` are absolute paths (work tree + the path as tracked) of every file
     that the index holds or any commit reachable from a ref, the reflog or a stash added, and
     whose name or directory looks like a secret by the cheap pre-filter of secrets_below (the
     policy decides which really are secrets). `complete` false (with `reason`) when git could
     not list them (no git, not a repository, an error, more than MAX_PATHS names): the policy
     treats that as uncertain.

The list is a cached git signal: it is computed with `git log --all --reflog --name-only
--diff-filter=A` plus `git ls-files`, and kept in the user's cache (`git-history/`), keyed by
the repository's refs, reflog, packed refs and index (their names, sizes, times and ref
contents), and MAC-tagged with the per-user cache key (cupcake_py/core/cache_mac.py) so that an
entry the agent wrote is never trusted. Any change to a ref or the index recomputes it. git
runs read-only (GIT_OPTIONAL_LOCKS=0), without the user's or system git configuration, and
within the evaluation's deadline (the engine's hard alarm stops it and fails closed).
"""

from __future__ import annotations

import os

from cupcake_py.core import jsonio
from cupcake_py.enrich.secrets_below import DIR_WORDS, candidate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_PATHS = 200_000
MAX_REF_FILES = 20_000
VERSION = b"git-history-1"
ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1",
       "GIT_CONFIG_GLOBAL": os.devnull}


def looks_secret(rel: str) -> bool:
    """The cheap pre-filter (secrets_below's) over a path as git lists it."""
    parts = rel.split("/")
    in_secret_dir = any(any(w in p.lower() for w in DIR_WORDS) for p in parts[:-1])
    return candidate(parts[-1], in_secret_dir)


def _state_key(git_dir: str) -> bytes | None:
    """What the cached list depends on: the refs (loose and packed), HEAD, the reflogs and the
    index, by name, size, mtime and (for refs) content. None: too many refs to key cheaply."""
    import hashlib

    h = hashlib.blake2b(digest_size=32)
    h.update(VERSION + b"\0" + os.path.realpath(git_dir).encode("utf-8", "surrogateescape"))
    count = 0
    for name in ("HEAD", "packed-refs", "index", "shallow", "commondir"):
        path = os.path.join(git_dir, name)
        try:
            st = os.stat(path)
        except OSError:
            h.update(b"\0-" + name.encode())
            continue
        h.update(f"\0{name}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}".encode())
        if name in ("HEAD", "commondir") and st.st_size < 4096:
            with open(path, "rb") as fh:
                data = fh.read()
            h.update(data)
            if name == "commondir":  # a linked worktree: the refs live in the common directory
                common = _state_key(os.path.join(git_dir, data.decode("utf-8", "surrogateescape").strip()))
                if common is None:
                    return None
                h.update(common)
    for sub in ("refs", "logs"):
        for root, dirs, files in os.walk(os.path.join(git_dir, sub)):
            dirs.sort()
            for f in sorted(files):
                count += 1
                if count > MAX_REF_FILES:
                    return None
                path = os.path.join(root, f)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                h.update(f"\0{path}:{st.st_size}:{st.st_mtime_ns}".encode("utf-8", "surrogateescape"))
                if sub == "refs" and st.st_size < 4096:
                    try:
                        with open(path, "rb") as fh:
                            h.update(fh.read())
                    except OSError:
                        continue
    return h.digest()


def _git(args: list[str], work_tree: str) -> bytes:
    import subprocess

    env = {**os.environ, **ENV}
    proc = subprocess.run(["git", "-C", work_tree, *args], capture_output=True, env=env, check=False,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise OSError(proc.stderr.decode("utf-8", "replace").strip()[:200] or f"git exited with {proc.returncode}")
    return proc.stdout


def _list(work_tree: str) -> tuple[list[str], bool, str]:
    """(secret-looking tracked paths relative to the work tree, complete, reason)."""
    try:
        names = _git(["log", "--all", "--reflog", "--format=", "--name-only", "-z", "--no-renames",
                      "--diff-filter=A"], work_tree).split(b"\0")
        names += _git(["ls-files", "-z", "--cached"], work_tree).split(b"\0")
    except FileNotFoundError:
        return [], False, "git is not installed"
    except OSError as e:
        return [], False, f"git could not list the history: {e}"
    if len(names) > MAX_PATHS:
        return [], False, f"the history names more than {MAX_PATHS} paths"
    seen = {n.decode("utf-8", "surrogateescape").strip("\n") for n in names if n.strip(b"\n")}
    return sorted(p for p in seen if looks_secret(p)), True, ""


def repository(git_dir: str, work_tree: str) -> dict[str, Any]:
    """The `git_history` entry of one repository (from the cache when its state is unchanged)."""
    from cupcake_py.core import cache_mac
    from cupcake_py.core.userdirs import atomic_write, private_dir, user_cache_dir

    state = _state_key(git_dir)
    mac_key = cache_mac.key()
    directory = user_cache_dir("git-history")
    name = state.hex() + ".json" if state is not None else ""
    if state is not None and mac_key is not None:
        try:
            with open(os.path.join(directory, name), "rb") as fh:
                raw = fh.read(1 << 24)
            tag, _, body = raw.partition(b"\n")
            if cache_mac.same(bytes.fromhex(tag.decode("ascii")), cache_mac.tag(mac_key, VERSION, state, body)):
                cached = jsonio.loads(body)
                if isinstance(cached, dict):
                    return cached
        except (OSError, ValueError):
            pass
    rel, complete, reason = _list(work_tree)
    entry = {"work_tree": work_tree, "git_dir": git_dir, "paths": [os.path.join(work_tree, p) for p in rel],
             "complete": complete, "reason": reason}
    if complete and state is not None and mac_key is not None and private_dir(directory, "git history cache"):
        body = jsonio.dumps(entry)
        tag_hex = cache_mac.tag(mac_key, VERSION, state, body).hex().encode("ascii")
        try:
            atomic_write(directory, name, [tag_hex, b"\n", body], ".tmp")
        except OSError:
            pass
    return entry


def add_git_history(policy_input: dict[str, Any]) -> None:
    if "sensitive_data_protection" not in (policy_input.get("builtin_config") or {}):
        return
    shell = policy_input.get("shell")
    if not isinstance(shell, dict):
        return
    repos: dict[tuple[str, str], None] = {}
    unknown = False
    for g in shell.get("git") or []:
        if not isinstance(g, dict) or g.get("history") is not True:
            continue
        git_dir, work_tree = g.get("git_dir"), g.get("work_tree")
        if isinstance(git_dir, str) and isinstance(work_tree, str):
            repos[(git_dir, work_tree)] = None
        else:
            unknown = True
    if not repos and not unknown:
        return
    out = []
    for git_dir, work_tree in repos:
        real_dir = _real_git_dir(git_dir)
        out.append(repository(real_dir, work_tree) if real_dir is not None else
                   {"work_tree": work_tree, "git_dir": git_dir, "paths": [], "complete": False,
                    "reason": f"{git_dir} is not a readable git directory"})
    if unknown:
        out.append({"work_tree": None, "git_dir": None, "paths": [], "complete": False,
                    "reason": "the repository whose history is printed is not known statically"})
    policy_input["git_history"] = {"repositories": out}


def _real_git_dir(git_dir: str) -> str | None:
    """The git directory (a worktree's or submodule's `.git` file names it)."""
    if os.path.isdir(git_dir):
        return git_dir
    try:
        with open(git_dir, encoding="utf-8", errors="replace") as fh:
            line = fh.read(4096).strip()
    except OSError:
        return None
    if line.startswith("gitdir:"):
        target = os.path.join(os.path.dirname(git_dir), line[7:].strip())
        return target if os.path.isdir(target) else None
    return None
