"""Static output of a few commands, so `$(…)` of them resolves: `pwd`, `echo`/`printf` of
static text (no escapes, no `%` formats), `cat` of a here-document, `dirname`, `basename`,
`realpath`/`readlink -f` of existing paths, `git rev-parse --show-toplevel`, and what a handler
recorded in `Cmd.output` (`find ROOT -name NAME` that only prints: the files it can select).

In: the analysed command (all its words static, no wrappers or redirections: the caller
checks) and the result (for nothing but future budget use). Out: the text the command prints,
or None when it is not known statically. Never raises.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.shell.model import Cmd, Result


def _echo(args: list[str], _cmd: Cmd) -> str | None:
    newline = "\n"
    while args and args[0] in ("-n", "-E"):
        newline = "" if args[0] == "-n" else newline
        args = args[1:]
    if any("\\" in a for a in args) or (args and args[0].startswith("-e")):
        return None  # escapes: bash's and dash's echo differ
    return " ".join(args) + newline


def _printf(args: list[str], _cmd: Cmd) -> str | None:
    if args and "%" not in args[0] and "\\" not in args[0] and not args[0].startswith("-"):
        return args[0]
    return None


def _cat(args: list[str], cmd: Cmd) -> str | None:
    if not args and cmd.stdin is not None and cmd.stdin[0] == "text":
        return str(cmd.stdin[1])
    return None


def _pwd(args: list[str], cmd: Cmd) -> str | None:
    return cmd.cwd if not [a for a in args if a not in ("-L",)] else None


def _dirname(args: list[str], _cmd: Cmd) -> str | None:
    if not args or any(a.startswith("-") for a in args):
        return None
    return "\n".join((os.path.dirname(a.rstrip("/")) or ".") if a.strip("/") else "/" for a in args) + "\n"


def _basename(args: list[str], _cmd: Cmd) -> str | None:
    if not args or len(args) > 2 or any(a.startswith("-") for a in args):
        return None
    name = os.path.basename(args[0].rstrip("/")) or "/"
    if len(args) == 2 and name.endswith(args[1]) and name != args[1]:
        name = name[:-len(args[1])]
    return name + "\n"


def _realpath(args: list[str], cmd: Cmd) -> str | None:
    paths = [a for a in args if a not in ("-f", "-e", "-m", "--canonicalize", "-s")]
    if cmd.name == "readlink" and not any(a in ("-f", "-e", "-m") for a in args):
        return None
    if len(paths) != 1 or paths[0].startswith("-") or (cmd.cwd is None and not paths[0].startswith("/")):
        return None
    joined = os.path.join(cmd.cwd or "/", paths[0])
    return os.path.realpath(joined) + "\n" if os.path.lexists(joined) else None


def _git(args: list[str], cmd: Cmd) -> str | None:
    if args != ["rev-parse", "--show-toplevel"] or cmd.cwd is None:
        return None
    d = os.path.realpath(cmd.cwd)
    for _ in range(64):
        if os.path.exists(os.path.join(d, ".git")):
            return d + "\n"
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
    return None


OUTPUTS = {"echo": _echo, "printf": _printf, "cat": _cat, "pwd": _pwd, "dirname": _dirname,
           "basename": _basename, "realpath": _realpath, "readlink": _realpath, "git": _git}


def static_output(cmd: Cmd, _result: Result | None = None) -> str | None:
    if cmd.output is not None:  # a handler listed what it prints (find … -print)
        return cmd.output
    words = [f.value for f in cmd.fields[1:]]
    if cmd.name is None or any(w is None for w in words) or cmd.wrappers:
        return None
    handler = OUTPUTS.get(cmd.name)
    return handler([w or "" for w in words], cmd) if handler is not None else None
