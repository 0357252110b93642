"""`input.search_reads`: the secret-looking files a file tool's directory search would read.

In:  the policy input of a PreToolUse event of a searching file tool (the agents' Grep, Glob,
     List/LS, a Read of a directory, MCP tools whose name says grep/search/find/glob/list) with
     builtin_config holding `sensitive_data_protection` (only then is it computed).
Out: `input.search_reads = {"tool", "kind", "dirs": {dir: [file, …]}}`: `kind` is `content` for
     content searches (Grep and MCP grep tools read every file they search) and `names` for
     listings (Glob, List, a directory Read: names only). The files are those below the searched
     directory (the `path` argument, or the working directory when none) that the pre-filter of
     secrets_below finds secret-looking, that the search's `include`/`glob` filter keeps, and that
     git does not ignore (both agents' searches run ripgrep with `--hidden`, which reads hidden
     files but honours .gitignore inside a repository; `git check-ignore` tells which). The
     policy (sensitive_data_protection) decides which are secrets. Bounded: MAX_ENTRIES
     directory entries per event; a directory that cannot be walked completely is listed with the
     marker `<dir>/.env` (unknown content may hold a secret). Nothing here raises.
"""

from __future__ import annotations

import os
import re

from cupcake_py.enrich.secrets_below import DIR_WORDS, SKIP_DIRS, candidate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_ENTRIES = 20_000
MAX_DEPTH = 16
MAX_FILES = 64
SEARCH_TOOLS = {"Grep": "content", "Glob": "names", "List": "names", "LS": "names", "Read": "names"}
MCP_WORDS = {"grep": "content", "search_content": "content", "search_code": "content", "search": "names",
             "find": "names", "glob": "names", "list": "names"}
INCLUDE_ARGS = ("include", "glob", "pattern_glob", "file_pattern", "filePattern")


def _kind(tool: str) -> str | None:
    if tool in SEARCH_TOOLS:
        return SEARCH_TOOLS[tool]
    lowered = tool.lower()
    return next((k for w, k in MCP_WORDS.items() if w in lowered), None)


def _include(args: dict[str, Any], tool: str) -> re.Pattern[str] | None:
    """The search's file filter as a regex over the path relative to the searched directory
    (ripgrep's `--glob`: a pattern without `/` matches the base name; `{a,b}` alternatives)."""
    raw = next((args[k] for k in INCLUDE_ARGS if isinstance(args.get(k), str) and args[k]), None)
    if raw is None and tool == "Glob" and isinstance(args.get("pattern"), str):
        raw = args["pattern"]
    if raw is None:
        return None
    from cupcake_py.shell.globbing import translate

    alternatives = _braces(raw)
    parts = []
    for alt in alternatives:
        body = translate(alt.lstrip("/"), slash=True)
        parts.append(body if "/" in alt else r"(?:.*/)?" + body)
    return re.compile(r"(?:" + "|".join(parts) + r")\Z", re.S)


def _braces(text: str) -> list[str]:
    m = re.search(r"\{([^{}]*)\}", text)
    if m is None:
        return [text]
    out: list[str] = []
    for alt in m.group(1).split(","):
        out += _braces(text[:m.start()] + alt + text[m.end():])
        if len(out) > 64:
            break
    return out


def _walk(root: str, keep: re.Pattern[str] | None) -> list[str]:
    found: list[str] = []
    budget = MAX_ENTRIES
    stack = [(root, 0, False)]
    while stack:
        d, depth, secret_dir = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return [*found, os.path.join(d, ".env")]  # unreadable: may hold a secret
        for e in entries:
            budget -= 1
            if budget < 0 or len(found) >= MAX_FILES:
                return [*found, os.path.join(d, ".env")]
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                return [*found, os.path.join(d, ".env")]
            if is_dir:
                if e.name in SKIP_DIRS:
                    continue  # .git (never searched) and dependency/build trees (as secrets_below)
                if depth >= MAX_DEPTH:
                    return [*found, os.path.join(e.path, ".env")]
                stack.append((e.path, depth + 1, secret_dir or any(w in e.name.lower() for w in DIR_WORDS)))
            elif candidate(e.name, secret_dir):
                rel = os.path.relpath(e.path, root)
                if keep is None or keep.match(rel):
                    found.append(e.path)
    return found


def _not_ignored(root: str, files: list[str]) -> list[str]:
    """`files` without those git ignores (the searches honour .gitignore in a repository);
    all of them when git cannot tell (no repository, no git, an error)."""
    import subprocess

    real = [f for f in files if os.path.exists(f)]
    if not real:
        return files
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        proc = subprocess.run(["git", "-C", root, "check-ignore", "-z", "--stdin"], input="\0".join(real).encode(
            "utf-8", "surrogateescape") + b"\0", capture_output=True, env=env, check=False)
    except OSError:
        return files
    if proc.returncode not in (0, 1):  # 1: nothing ignored; 128: not a repository or an error
        return files
    ignored = {p.decode("utf-8", "surrogateescape") for p in proc.stdout.split(b"\0") if p}
    return [f for f in files if f not in ignored]


def add_search_reads(policy_input: dict[str, Any]) -> None:
    if "sensitive_data_protection" not in (policy_input.get("builtin_config") or {}):
        return
    if policy_input.get("hook_event_name") != "PreToolUse":
        return
    tool = policy_input.get("tool_name")
    args = policy_input.get("tool_input")
    if not isinstance(tool, str) or not isinstance(args, dict) or tool == "Bash":
        return
    kind = _kind(tool)
    if kind is None:
        return
    dirs = [e["path"] for e in policy_input.get("tool_paths") or []
            if isinstance(e, dict) and isinstance(e.get("path"), str) and e.get("access") in ("read", "unknown")
            and os.path.isdir(e["path"])]
    if not dirs and tool != "Read" and not any(isinstance(args.get(k), str) and args[k] for k in ("path", "dir",
                                                                                               "directory")):
        cwd = policy_input.get("cwd")
        if isinstance(cwd, str) and os.path.isdir(cwd):
            dirs = [os.path.realpath(cwd)]  # no path: the search starts in the working directory
    if not dirs:
        return
    keep = _include(args, tool)
    out = {}
    for d in dict.fromkeys(dirs):
        files = _walk(d, keep)
        if kind == "content" and files:
            files = _not_ignored(d, files)
        if files:
            out[d] = files
    if out:
        policy_input["search_reads"] = {"tool": tool, "kind": kind, "dirs": out}
