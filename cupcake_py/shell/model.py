"""Records shared by the shell analysis: the budget, expanded words and the result collector.

In: nothing at import (no tree-sitter here). Out: `Budget` (limits of one analysis),
`Field` (one expanded shell word: its static value or None when opaque), `Cmd` (one simple
command as analysed) and `Result`, which accumulates commands, effects, patterns, opacity,
git facts and tags and renders the `input.shell` object (docs/shell-analysis.md).
Nothing here raises on odd values; paths are made absolute by `Result.path`.
"""

from __future__ import annotations

import os
import re

from cupcake_py.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.shell.globbing import Expansion

KINDS = ("reads", "writes", "deletes", "links", "executes")
# device files a redirection may target without touching anything a policy protects
QUIET_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/stdin", "/dev/zero"})


class Budget(Record):
    """Limits of one analysis, all counted in WORK, never in time: the same command in the same
    directory gets the same analysis on an idle and on a loaded machine. Beyond any of them the
    part not analysed is opaque (the reason names the budget). The only wall-clock limit is the
    deadline of the whole evaluation (`cupcake eval --timeout`), which fails the evaluation closed."""

    __slots__ = ("max_depth", "max_bytes", "max_commands", "max_glob_matches", "max_glob_dirs", "max_steps",
                 "max_words", "max_dirs_listed")
    max_depth: int  # nested shells, eval, scripts, functions
    max_bytes: int  # script, archive and config bytes read in one analysis
    max_commands: int  # simple commands recorded
    max_glob_matches: int  # per glob
    max_glob_dirs: int  # directories listed per glob
    max_steps: int  # statements walked (loop passes and values, functions, nested code included)
    max_words: int  # words expanded
    max_dirs_listed: int  # directories listed by all globs of one analysis

    def __init__(self, max_depth: int = 4, max_bytes: int = 4 << 20, max_commands: int = 2000,
                 max_glob_matches: int = 1000, max_glob_dirs: int = 2000, max_steps: int = 20000,
                 max_words: int = 4096, max_dirs_listed: int = 10000) -> None:
        self._fill(max_depth, max_bytes, max_commands, max_glob_matches, max_glob_dirs, max_steps, max_words,
                   max_dirs_listed)


class Field(Record):
    """One word after expansion. `value` None: opaque (`reason` says why). `pattern`: the glob
    this field came from (relative as written, quoted glob characters backslash-escaped).
    `split`: an unquoted opaque part may expand to any number of words. `prefix`: the static
    text before the first opaque part (`-j` of `-j$(nproc)`)."""

    __slots__ = ("value", "pattern", "reason", "split", "prefix")
    value: str | None
    pattern: str | None
    reason: str | None
    split: bool
    prefix: str

    def __init__(self, value: str | None, pattern: str | None = None, reason: str | None = None,
                 split: bool = False, prefix: str = "") -> None:
        self._fill(value, pattern, reason, split, prefix)


class Cmd(Record):
    """A simple command being analysed (becomes one entry of `commands`)."""

    __slots__ = ("name", "fields", "wrappers", "cwd", "redirects", "origin", "depth", "opaque", "env", "index",
                 "stdin", "output")
    name: str | None
    fields: list[Field]
    wrappers: list[str]
    cwd: str | None
    redirects: list[dict[str, Any]]
    origin: str
    depth: int
    opaque: list[str]
    env: dict[str, str | None]
    index: int
    stdin: tuple[str, object] | None  # where its input comes from (internal: not in the JSON)
    output: str | None  # what it prints, when its handler knows (find's listing; internal)

    def __init__(self, name: str | None, fields: list[Field], wrappers: list[str], cwd: str | None,
                 origin: str, depth: int, env: dict[str, str | None]) -> None:
        self._fill(name, fields, wrappers, cwd, [], origin, depth, [], env, -1, None, None)

    def argv(self) -> list[str | None]:
        return [f.value for f in self.fields]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "argv": self.argv(), "wrappers": list(self.wrappers), "cwd": self.cwd,
                "redirects": list(self.redirects), "origin": self.origin, "depth": self.depth,
                "opaque": list(dict.fromkeys(self.opaque))}


class Deadline(Exception):
    """The analysis used up a work budget (caught by analysis.run: the rest is opaque)."""


class Result:
    """Everything one analysis found, in execution order."""

    __slots__ = ("source", "cwd", "parsed", "commands", "effects", "patterns", "opaque", "git", "facts",
                 "budget", "steps", "dirs_listed", "bytes_read", "words", "recursive", "git_config", "git_hooks_line",
                 "venvs")

    def __init__(self, source: str, cwd: str, budget: Budget) -> None:
        self.source = source
        self.cwd = cwd
        self.parsed = True
        self.commands: list[Cmd] = []
        self.effects: dict[str, dict[str, None]] = {k: {} for k in KINDS}
        self.patterns: dict[str, dict[str, None]] = {k: {} for k in KINDS}
        self.opaque: list[dict[str, Any]] = []
        self.git: list[dict[str, Any]] = []
        self.facts: dict[str, None] = {}
        self.budget = budget
        self.steps = 0
        self.dirs_listed = 0
        self.bytes_read = 0
        self.words = 0
        self.recursive: dict[str, dict[str, None]] = {k: {} for k in KINDS}
        self.git_config: dict[str, str | None] = {}  # `git config KEY VALUE` earlier in the line
        self.git_hooks_line: list[str] = []
        self.venvs: dict[str, None] = {}  # virtual environments the line creates (python -m venv DIR)

    def check(self) -> None:
        self.steps += 1
        if self.steps > self.budget.max_steps:
            raise Deadline(f"the analysis work budget ({self.budget.max_steps} statements walked) is exhausted")
        if len(self.commands) >= self.budget.max_commands:
            raise Deadline(f"more commands than the analysis budget allows ({self.budget.max_commands})")

    def glob(self, pattern: str, cwd: str, options: frozenset[str]) -> Expansion:
        """`pattern` expanded within the per-glob budgets and what is left of the analysis's
        directory-listing budget (a cut listing is `truncated`: the caller makes it opaque)."""
        from cupcake_py.shell import globbing

        budget = self.budget
        left = max(0, budget.max_dirs_listed - self.dirs_listed)
        got = globbing.expand(pattern, cwd, max_matches=budget.max_glob_matches,
                              max_dirs=min(budget.max_glob_dirs, left), options=options)
        self.dirs_listed += got.listed
        return got

    def add_command(self, cmd: Cmd) -> int:
        self.check()
        cmd.index = len(self.commands)
        self.commands.append(cmd)
        return cmd.index

    def mark(self, kind: str, reason: str, cmd: Cmd | None) -> None:
        entry = {"kind": kind, "reason": reason, "command": None if cmd is None else cmd.index}
        if entry not in self.opaque:
            self.opaque.append(entry)
        if cmd is not None:
            cmd.opaque.append(reason if kind == "command" else f"{kind}: {reason}")

    def fact(self, tag: str) -> None:
        self.facts[tag] = None

    def path(self, kind: str, field: Field, cwd: str | None, cmd: Cmd | None, *, own: bool = False) -> str | None:
        """Record an effect of `kind` on the path `field` names (relative to `cwd`). Returns the
        absolute path, or None when it is opaque (then an opaque entry is recorded). `own`: the
        operand itself is affected even when it is a symlink (rm, mv source, ln)."""
        if field.value is None:
            self.mark(kind, field.reason or "the word is not static", cmd)
            return None
        value = field.value
        if not value:
            return None
        if "\0" in value:
            self.mark(kind, "a path with a NUL byte (never a real file name)", cmd)
            return None
        absolute = absolute_path(value, cwd)
        if absolute is None:
            self.mark(kind, f"relative path {value!r} in a directory not known statically", cmd)
            return None
        if kind == "writes" and absolute in QUIET_DEVICES:
            return absolute
        if absolute.startswith(("/dev/tcp/", "/dev/udp/")):  # bash opens a socket
            self.fact("network")
        if kind == "reads" and _ENVIRON.match(absolute):  # a process's environment (tokens)
            self.fact("env_dump")
        # realpath of the path as written: `..` after a symlink goes where the kernel goes
        raw = value if value.startswith("/") else os.path.join(cwd or "/", value)
        # /proc/self names whichever process opens it: never this analysis's own pid
        real = absolute if absolute.startswith(("/proc/self/", "/proc/thread-self/")) else os.path.realpath(raw)
        self.effects[kind][real] = None
        if own and real != absolute and os.path.basename(absolute) not in ("", "..", "."):
            own_path = os.path.join(os.path.realpath(os.path.dirname(raw.rstrip("/"))), os.path.basename(absolute))
            self.effects[kind][own_path] = None
        if field.pattern is not None:
            pattern = absolute_path(field.pattern, cwd, pattern=True)
            if pattern is not None:
                self.patterns[kind][pattern] = None
        return real

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "source": self.source,
            "cwd": self.cwd,
            "parsed": self.parsed,
            "commands": [c.to_json() for c in self.commands],
            "effects": {k: sorted(v) for k, v in self.effects.items()},
            "patterns": {k: sorted(v) for k, v in self.patterns.items()},
            "opaque": list(self.opaque),
            "git": list(self.git),
            "facts": sorted(self.facts),
            "recursive": {k: sorted(v) for k, v in self.recursive.items()},
        }


_ENVIRON = re.compile(r"^/proc/[^/]+(?:/task/[^/]+)?/environ$")


def decimal(text: str | None) -> int | None:
    """The number a shell reads from `text` when it is ASCII decimal digits (leading zeros
    allowed: bash reads 010 as 10); None otherwise. `str.isdigit` alone also accepts other
    scripts' digits and superscripts, which no shell reads as numbers."""
    if text is None or not text or not text.isascii() or not text.isdigit():
        return None
    return int(text)


def absolute_path(value: str, cwd: str | None, *, pattern: bool = False) -> str | None:
    """`value` made absolute against `cwd` and normalised (no realpath). None: relative in an
    unknown directory. For patterns the leading non-glob directories are realpath'd."""
    if value.startswith("/"):
        joined = value
    elif cwd is None:
        return None
    else:
        joined = os.path.join(cwd, value)
    normal = os.path.normpath(joined)
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    if not pattern:
        return normal
    parts = normal.split("/")
    fixed = 1
    while fixed < len(parts) and not any(c in parts[fixed] for c in "*?[\\("):
        fixed += 1
    head = os.path.realpath("/".join(parts[:fixed]) or "/")
    rest = "/".join(parts[fixed:])
    return head if not rest else (head.rstrip("/") + "/" + rest)
