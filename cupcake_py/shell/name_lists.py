"""Indirect file lists: commands that take the names of the files they read from a file or from
their standard input (`tar -T FILE`, `zip -@`, `rsync --files-from=FILE`, `cpio -o`).

In: a `semantics.Call` and where the list comes from (a file operand, or None / `-` for standard
input). Out: `listed_reads(...)` records a read of every listed name (relative to the directory
given, default the command's), recursively for directories when asked; the list is read within
the analysis's byte budget from a file that exists before the line runs and that the line does
not write first, or from a static standard input (a here-document, `echo`, `printf`, a narrowed
`find ROOT -name NAME` listing). A list known only at run time makes reads opaque with the
reason. Raises only `Deadline`.
"""

from __future__ import annotations

import os

from cupcake_py.shell import handlers
from cupcake_py.shell.model import Field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.shell.semantics import Call

MAX_NAMES = 4096


def _stdin_text(call: Call) -> tuple[str | None, str]:
    from cupcake_py.shell.model import Cmd
    from cupcake_py.shell.outputs import static_output

    src = call.stdin
    if src is None:
        return "", "no input"
    if src[0] == "text" and isinstance(src[1], str):
        return src[1], "its input"
    if src[0] == "file" and isinstance(src[1], str):
        return _file_text(call, src[1]), src[1]
    if src[0] == "cmd" and isinstance(src[1], Cmd) and not src[1].redirects:
        cmd = src[1]
        words = cmd.argv()[1:]
        if cmd.name == "cat" and not cmd.wrappers and len(words) == 1 and words[0] is not None \
                and not words[0].startswith("-"):  # `cat LIST | …`
            path = os.path.join(cmd.cwd, words[0]) if cmd.cwd is not None else None
            return (_file_text(call, os.path.normpath(path)) if path else None), words[0]
        return static_output(cmd), f"the output of {cmd.name or 'a command'}"
    return None, "its input"


def _file_text(call: Call, path: str) -> str | None:
    if not os.path.isfile(path):
        return None
    return handlers.read_script(call, path, "file list")


def listed_reads(call: Call, source: Field | None, what: str, *, base: str | None = None, null: bool = False,
                 recursive: bool = False) -> None:
    """Reads of the names `what` takes from `source` (None or `-`: standard input)."""
    if source is None or source.value in ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"):
        text, where = _stdin_text(call)
    elif source.value is None:
        text, where = None, "a file named at run time"
    else:
        path = call.effect("reads", source)
        text, where = (_file_text(call, path), path) if path is not None else (None, source.value)
    if text is None:
        call.opaque("reads", f"{what} reads the names of the files it reads from {where}, known only at run time")
        return
    names = [n for n in (text.split("\0") if null else text.splitlines()) if n.strip()]
    if len(names) > MAX_NAMES:
        call.opaque("reads", f"{what}: more than {MAX_NAMES} names in its list")
        return
    saved = call.cwd
    if base is not None:
        call.cwd = base
    try:
        for name in names:
            p = call.effect("reads", Field(name))
            if p is not None and recursive and os.path.isdir(p):
                call.result.recursive["reads"][p] = None
    finally:
        call.cwd = saved


class ListSpec:
    """Where a program takes its file list: `stdin` options (the list is standard input, `when`
    options mean the program reads files at all), `file` options (the list is that file), `null`
    options (NUL-separated), `base` ("source": names are relative to the first operand)."""

    __slots__ = ("stdin", "file", "when", "null", "base")

    def __init__(self, stdin: tuple[str, ...] = (), file: tuple[str, ...] = (), when: tuple[str, ...] = (),
                 null: tuple[str, ...] = (), base: str = "cwd") -> None:
        self.stdin = stdin
        self.file = file
        self.when = when
        self.null = null
        self.base = base


# tar -T/--files-from is applied by tools.tar (its old-style option letters need its own parser).
LISTS: dict[str, ListSpec] = {
    "zip": ListSpec(stdin=("-@", "--names-stdin")),
    "rsync": ListSpec(file=("--files-from",), null=("-0", "--from0"), base="source"),
    "cpio": ListSpec(stdin=("-o", "--create", "-p", "--pass-through"), null=("-0", "--null")),
}


def apply(call: Call, spec: ListSpec) -> None:
    words = [f.value for f in call.args]
    null = any(w in spec.null for w in words)
    operands = [f for f in call.args if f.value is None or not f.value.startswith("-")]
    base = None
    if spec.base == "source" and operands and operands[0].value is not None:
        base = handlers.resolve_dir(operands[0], call.cwd)
    for i, f in enumerate(call.args):
        v = f.value or ""
        name, eq, inline = v.partition("=")
        if name in spec.file:
            source = Field(inline) if eq else (call.args[i + 1] if i + 1 < len(call.args) else Field(None))
            listed_reads(call, source, f"{call.name} {name}", base=base, null=null, recursive=False)
        elif v in spec.stdin or (v.startswith("-") and not v.startswith("--") and
                                 any(s[1:] in v[1:] for s in spec.stdin if len(s) == 2 and s[1] not in "@")):
            listed_reads(call, None, f"{call.name} {v}", base=base, null=null, recursive=False)
            return
