"""Bash command analysis for preprocessing: whitespace normalization outside quotes,
shell-word segments, affected directories and executed script files.

Everything here is pure text processing except `resolve_path` (realpath) and
`read_script` (reads the script file a command runs)."""

from __future__ import annotations

import errno
import itertools
import operator
import os
import re
import stat

from cupcake_py.core.record import FrozenRecord
from cupcake_py.core.userdirs import expand_home

OPERATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "!", "{", "}"})
REDIRECTS = frozenset({">", ">>", "<", "<<", "<<<", ">|", "&>", "&>>", ">&", "<&"})
SHELLS = frozenset({"sh", "bash", "zsh", "fish", "ksh", "dash", "ash", "mksh"})
INTERPRETERS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|perl|php|lua|luajit|"
                          r"Rscript|julia|tclsh|awk|gawk|osascript|pwsh)$")
SOURCING = frozenset({"source", "."})
WRAPPERS = frozenset({"sudo", "doas", "env", "nohup", "time", "exec", "command", "nice", "timeout", "xargs",
                      "stdbuf", "setsid", "builtin"})
INLINE_FLAGS = frozenset({"-c", "-e", "--eval", "-E", "-r", "--command", "-m"})
PATH_CHARS = re.compile(r"[/\\*?\[]")
GLOB_CHARS = re.compile(r"[*?\[]")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
QUIET_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
MAX_SCRIPT_BYTES = 1 << 20
PATH_MAX = 4096  # a longer name names no file (the kernel refuses it): not looked up (no copies of a huge word)


# What normalize_whitespace looks at, in the order tried: a single-quoted string (literal to its
# end or the end of the text), a double-quoted one (backslash escapes inside), a run of whitespace
# and line continuations, a backslash escape. Text between matches is copied as is.
_NORMALIZED = re.compile(r"""'[^']*(?:'|\Z)|"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)|(?P<ws>(?:\s|\\\n)+)|\\.?""",
                         re.DOTALL)
_NO_SEMICOLON_AFTER = frozenset(";&|({")
_ASCII_WS_BUT_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"  # str.isspace() in ASCII, but " "


def normalize_whitespace(command: str) -> str:
    """Each run of whitespace outside quotes becomes one space (or `; ` when the run holds a
    newline, which ends a command in the shell), then trim. Inside single quotes everything
    is literal; elsewhere a backslash keeps the next character as is, except that a
    backslash-newline (line continuation) is whitespace. Linear, in C but for one call per
    whitespace run (a large command is normalised without a list of its characters)."""
    if command.isascii() and "  " not in command and command[:1] != " " and command[-1:] != " " \
            and not any(ch in command for ch in _ASCII_WS_BUT_SPACE):
        return command  # no whitespace but single inner spaces: nothing changes (found by memchr, not char by char)
    end = len(command)

    def replace(m: re.Match[str]) -> str:
        run = m.group("ws")
        if run is None:
            return m.group()  # quoted text or an escape: as written
        if m.start() == 0 or m.end() == end:
            return ""
        newline = "\n" in (run.replace("\\\n", "") if "\\" in run else run)
        return "; " if newline and command[m.start() - 1] not in _NO_SEMICOLON_AFTER else " "

    return _NORMALIZED.sub(replace, command)


_SEGMENTS: dict[str, tuple[tuple[str, ...], ...]] = {}  # command -> segments (text only: nothing on disk)
MAX_SEGMENT_MEMO = 256
MAX_SEGMENT_MEMO_CHARS = 8192  # longer commands are not remembered (at most 256 x 8 KiB of keys)


def segments(command: str) -> list[list[str]]:
    """Shell words grouped into simple commands (split at ; && || | & and parentheses).
    Redirection operators stay in the segment as their own words. Unbalanced quotes fall
    back to a whitespace split. A function of the text alone, so the last commands' answers
    are remembered (each caller gets its own lists)."""
    known = _SEGMENTS.get(command)
    if known is None:
        known = tuple(tuple(seg) for seg in _split_segments(command))
        if len(command) <= MAX_SEGMENT_MEMO_CHARS:  # a large command is split afresh (linear): memory stays flat
            if len(_SEGMENTS) >= MAX_SEGMENT_MEMO:
                _SEGMENTS.clear()
            _SEGMENTS[command] = known
    return [list(seg) for seg in known]


# The shell words of `segments`: exactly what Python's shlex gives in its posix mode with
# whitespace_split, no comment characters and the punctuation characters below (shlex is the
# reference in tests/enrich/test_shell_words_split.py), found in linear time by a C regex scan
# (shlex grows each word a character at a time: quadratic in a word's length). A token is a run
# of punctuation or a word: runs of other characters, '…' (literal), "…" (backslash escapes
# only \" and \\), and \x (x as is, a newline too). Whitespace is shlex's: space, tab, CR, LF.
_PUNCTUATION = ";&|()<>!{}"
_QUOTED = r"""'[^']*+'|"(?:[^"\\]++|\\.)*+"|\\."""  # possessive: no backtracking, no per-step memory
_TOKENS = re.compile(rf"""[{_PUNCTUATION}]++|(?:[^ \t\r\n{_PUNCTUATION}'"\\]++|{_QUOTED})++|[^ \t\r\n]""",
                     re.DOTALL)  # the last alternative is a quote or backslash that never closes: an error
_PIECES = re.compile(r"""'([^']*+)'|\\(.)|"((?:[^"\\]++|\\.)*+)\"""", re.DOTALL)  # 1 literal, 2 escaped, 3 "…"
_ESCAPED_IN_DOUBLE_QUOTES = re.compile(r"""\\(["\\])""")
_first_group = operator.itemgetter(1)  # called by re.sub in C: no Python frame per escape
_UNCLOSED = {"'": "No closing quotation", '"': "No closing quotation", "\\": "No escaped character"}


def _piece_text(m: re.Match[str]) -> str:
    """A quoted or escaped piece's text: literal, the escaped character, or \"…\" unescaped."""
    group = m.lastindex or 0
    text = m[group]
    if group == 3 and "\\" in text:
        return _ESCAPED_IN_DOUBLE_QUOTES.sub(_first_group, text)
    return text


def words(command: str) -> list[str]:
    """The shell words of `command` (punctuation runs as their own words), as shlex splits them
    (see above). An unclosed quote or a backslash at the end raises ValueError, as shlex does.
    Linear: one regex scan, then one substitution pass over each word that holds quotes or escapes."""
    found: list[str] = _TOKENS.findall(command)
    if "'" not in command and '"' not in command and "\\" not in command:
        return found
    for char, error in _UNCLOSED.items():
        if char in found:  # a token of one quote or backslash: it never closes (a closed one is longer)
            raise ValueError(error)
    return [_PIECES.sub(_piece_text, w) if ("'" in w or '"' in w or "\\" in w) else w for w in found]


def _split_segments(command: str) -> list[list[str]]:
    try:
        found = words(command)
    except ValueError:
        found = command.split()
    return _group(found)


def _group(words: list[str]) -> list[list[str]]:
    """The runs of words between operators (grouped in C: no Python step per word)."""
    return [list(run) for is_operator, run in itertools.groupby(words, OPERATORS.__contains__) if not is_operator]


def resolve_path(raw: str, base: str) -> str:
    """Absolute, symlink-free form of `raw` relative to `base` (components that do not exist
    are kept, `..` is applied after resolving the symlinks before it)."""
    return os.path.realpath(os.path.join(base, expand_home(raw)))


def _loop_free_realpath(path: str) -> str | None:
    """realpath of `path` when it resolves without meeting a symlink loop (realpath stops
    resolving at a loop and keeps the rest as written: no parent to build on), else None."""
    try:
        return os.path.realpath(path, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP or ".." in path.split("/"):
            return None  # a loop, or a `..` after a missing part that could lead to one
        return os.path.realpath(path)  # a missing part: nothing after it is a symlink


class _Resolver:
    """`resolve_path` with each parent directory's real path remembered: a word's path costs one
    lstat of its last component, not one per component (many path words in one directory were
    most of a large command's analysis). The same answers: realpath resolves a path one
    component after the other, so the real path of `dir/name` is that of `dir` joined with
    `name` unless `name` is a symlink (then resolved in full), `.`/`..`/empty, or `dir` holds a
    symlink loop (then `resolve_path` itself answers)."""

    __slots__ = ("_parents",)

    def __init__(self) -> None:
        self._parents: dict[str, str | None] = {}

    def __call__(self, raw: str, base: str) -> str:
        if raw[:1] in "~$" or "\0" in raw or "\0" in base:
            return resolve_path(raw, base)  # home expansion, or what realpath refuses: as it does
        full = os.path.join(base, raw)
        head, name = os.path.split(full)
        if name in ("", ".", "..") or "//" in full:
            return resolve_path(raw, base)
        if head in self._parents:
            parent = self._parents[head]
        else:
            parent = self._parents[head] = _loop_free_realpath(head)
        if parent is None:
            return resolve_path(raw, base)
        path = os.path.join(parent, name)
        return os.path.realpath(path) if os.path.islink(path) else path


def _command_words(seg: list[str]) -> list[str]:
    """The segment without leading assignments, wrappers and their flags."""
    i = 0
    while i < len(seg):
        w = seg[i]
        if ASSIGNMENT.match(w):
            i += 1
        elif w.rpartition("/")[2] in WRAPPERS:  # the basename, without posixpath's per-call overhead
            i += 1
            while i < len(seg) and (seg[i].startswith("-") or ASSIGNMENT.match(seg[i]) or seg[i].isdigit()):
                i += 1
        else:
            break
    return seg[i:]


SimpleCommands = list[tuple[list[str], str]]


def simple_commands(command: str, base: str) -> SimpleCommands:
    """Each simple command's words (wrappers removed) with the directory it runs in: a
    `cd DIR` (or pushd) changes the base for the commands after it. Split once, then read by
    `directories_in` and `scripts_in` (a large command is not split twice)."""
    out = []
    for seg in segments(command):
        words = _command_words(seg)
        out.append((words, base))
        if len(words) >= 2 and words[0] in ("cd", "pushd") and not words[1].startswith("-"):
            base = resolve_path(words[1], base)
        elif words == ["cd"]:
            base = expand_home("~")
    return out


def affected_directories(command: str, base: str) -> list[str]:
    """`directories_in` the simple commands of `command`."""
    return directories_in(simple_commands(command, base))


def directories_in(commands: SimpleCommands) -> list[str]:
    """Paths the commands operate on: path-like words (containing / \\ * ? [, starting with
    . $ ~, or naming an existing file in the directory the simple command runs in) other than
    each simple command's verb, cut before the first glob character and resolved against
    the directory it runs in (`base` updated by `cd DIR`); de-duplicated, in order."""
    out: dict[str, None] = {}  # ordered set: a list's `in` made this quadratic in the number of paths
    seen: set[tuple[str, str]] = set()  # (directory, word) looked at: one lstat per distinct word
    resolved: set[tuple[str, str]] = set()  # (directory, text before any glob): one realpath each
    resolve = _Resolver()
    for words, here in commands:
        for w in words[1:]:
            if (here, w) in seen:
                continue
            seen.add((here, w))
            if w in REDIRECTS or w == "--" or w.isdigit() or (w.startswith("-") and "/" not in w):
                continue
            if not (PATH_CHARS.search(w) or w[:1] in ".$~" or (len(w) < PATH_MAX and os.path.lexists(os.path.join(here, w)))):
                continue
            if "://" in w or w in QUIET_DEVICES:
                continue
            m = GLOB_CHARS.search(w)
            cut = w[: m.start()] if m else w
            if (here, cut) not in resolved:  # words cut to the same text resolve once
                resolved.add((here, cut))
                out[resolve(cut or ".", here)] = None
    return list(out)


class ScriptRun(FrozenRecord):
    __slots__ = ("word", "path")
    word: str  # as written in the command
    path: str  # resolved

    def __init__(self, word: str, path: str) -> None:
        self._fill(word, path)


def executed_scripts(command: str, base: str) -> list[ScriptRun]:
    """`scripts_in` the simple commands of `command`."""
    return scripts_in(simple_commands(command, base))


def scripts_in(commands: SimpleCommands) -> list[ScriptRun]:
    """Script files the commands execute: `./x`, `dir/x`, `/abs/x`, `bash|sh|… [flags] file`,
    `python|node|ruby|… [flags] file`, `source file`, `. file` (not `-c`/`-e` inline code)."""
    runs: dict[tuple[str, str], None] = {}  # (word, path), ordered: no list scan per script (quadratic)
    for words, here in commands:
        if not words:
            continue
        verb = words[0]
        name = verb.rpartition("/")[2]  # the basename
        target: str | None = None
        if name in SHELLS or INTERPRETERS.match(name) or verb in SOURCING:
            for w in words[1:]:
                if w in INLINE_FLAGS:
                    break
                if w in REDIRECTS:
                    break
                if w.startswith("-"):
                    continue
                target = w
                break
        elif "/" in verb:
            target = verb
        if target is not None:
            runs[target, resolve_path(target, here)] = None
    return [ScriptRun(word, path) for word, path in runs]


def read_script(path: str) -> str | None:
    """The text of a regular file (first MAX_SCRIPT_BYTES, undecodable bytes replaced), or
    None. Never opens FIFOs or devices (that could block)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            return os.read(fd, MAX_SCRIPT_BYTES).decode("utf-8", "replace")
        finally:
            os.close(fd)
    except OSError:
        return None
