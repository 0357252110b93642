"""Commands whose grammar does not fit a table row: shells and scripts, eval/source, cd,
interpreters, dd, tar, find, patch, curl/wget, package managers, awk, read/set/trap.

In: a `semantics.Call`. Out: effects, facts and opacity on the shared result; nested
shell code goes back to the walker one level deeper (depth and byte budgets enforced:
beyond them the command is opaque, never silently fine). Scripts are read in full within
the byte budget; an unreadable, missing or too large script is opaque. Raises only
`Deadline`.
"""

from __future__ import annotations

import os
import re

from cupcake_py.shell import diffs, options
from cupcake_py.shell.model import Field, absolute_path
from cupcake_py.shell.table import SHELLS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cupcake_py.shell.model import Cmd, Result
    from cupcake_py.shell.semantics import Call

RUNTIME_CODE = "shell code known only at run time"
ALL_KINDS = "reads+writes+deletes+links+executes"
INLINE_KINDS = "reads+writes+deletes"
INLINE = "inline interpreter program"
REMOTE = re.compile(r"^(?:[A-Za-z0-9_.+-]+@)?[A-Za-z0-9_.-]+:(?!//)")


# -- helpers used by semantics ------------------------------------------------------------------
def resolve_dir(field: Field, cwd: str | None) -> str | None:
    if field.value is None:
        return None
    return absolute_path(field.value, cwd)


def split_words(field: Field) -> list[Field]:
    if field.value is None:
        return [Field(None, reason=field.reason, split=True)]
    return [Field(w) for w in field.value.split()]


def join_code(fields: list[Field]) -> Field:
    if any(f.value is None for f in fields):
        return Field(None, reason=next(f.reason for f in fields if f.value is None))
    return Field(" ".join(f.value or "" for f in fields))


def is_remote(value: str) -> bool:
    return bool(REMOTE.match(value)) and not value.startswith(("/", "./", "../"))


def maybe_read(result: Result, field: Field, cwd: str | None, cmd: Cmd) -> None:
    """Operands of commands the table does not know: existing paths are reads."""
    if field.value is None:
        result.mark("reads", field.reason or "operand known only at run time", cmd)
        return
    value = field.value
    if value.startswith("-"):
        value = value.partition("=")[2]
        if not value:
            return
    path = absolute_path(value, cwd)
    if path is not None and os.path.lexists(path):
        result.path("reads", Field(value, pattern=field.pattern), cwd, cmd)


def into_dir(call: Call, target: Field, sources: list[Field], kind: str) -> None:
    if target.value is None or call.cwd is None and not target.value.startswith("/"):
        return
    base = absolute_path(target.value, call.cwd)
    if base is None or not os.path.isdir(base):
        return
    for src in sources:
        if src.value is not None:
            call.effect(kind, Field(os.path.join(base, os.path.basename(src.value.rstrip("/")))))


def xargs_command(parsed: options.Parsed, rest: list[Field], pending: list[tuple[str, Field]]) -> list[Field]:
    """The command xargs runs: its operands (default echo) with the arguments it reads from
    stdin, which are opaque."""
    command = rest or [Field("echo")]
    opaque = Field(None, reason="xargs supplies arguments from its input", split=True)
    repl = [v.value for v in parsed.values("-I", "--replace", "-i") if v.value is not None]
    if parsed.has("-i") and not repl:
        repl = ["{}"]
    if repl:
        return [opaque if (f.value is not None and repl[0] in f.value) else f for f in command]
    return command + [opaque]


def _depth_ok(call: Call, what: str) -> bool:
    if call.walker.depth + 1 > call.result.budget.max_depth:
        call.opaque("command", f"{what} nested deeper than the analysis budget")
        call.opaque(ALL_KINDS, f"{what} nested deeper than the analysis budget")
        return False
    return True


def run_code(call: Call, code: Field, origin: str, *, share: bool = False,
             args: list[str] | None = None) -> None:
    """Analyse shell code one level deeper (a new shell, or the same one for eval/source)."""
    if code.value is None:
        call.opaque("command", f"{RUNTIME_CODE} ({code.reason})")
        call.opaque(ALL_KINDS, RUNTIME_CODE)
        return
    if not _depth_ok(call, origin):
        return
    state = call.state if share else call.state.child(call.walker, call.cwd, call.env, args or [])
    if share and call.cwd != call.state.cwd:
        state = call.state.copy()
        state.cwd = call.cwd
    call.walker.run_string(code.value, state, origin)


def read_script(call: Call, path: str) -> str | None:
    """The whole script within the byte budget; None (and opacity recorded) otherwise."""
    written = any(path in call.result.effects[k] for k in ("writes", "deletes", "links"))
    if written:
        call.opaque("command", f"script {path} is changed by this command line before it runs")
        call.opaque(ALL_KINDS, f"script {path} is changed by this command line")
        return None
    try:
        size = os.path.getsize(path)
        remaining = call.result.budget.max_bytes - call.result.bytes_read
        if size > remaining:
            call.opaque("command", f"script {path} ({size} bytes) exceeds the analysis byte budget")
            call.opaque(ALL_KINDS, f"script {path} exceeds the analysis byte budget")
            return None
        with open(path, "rb") as fh:
            data = fh.read(remaining + 1)
    except OSError as exc:
        call.opaque("command", f"script {path} cannot be read ({exc.strerror or exc})")
        call.opaque(ALL_KINDS, f"script {path} cannot be read")
        return None
    call.result.bytes_read += len(data)
    if len(data) > remaining:
        call.opaque("command", f"script {path} exceeds the analysis byte budget")
        call.opaque(ALL_KINDS, f"script {path} exceeds the analysis byte budget")
        return None
    return data.decode("utf-8", "replace")


def run_file(call: Call, field: Field, *, shell: bool = False, share: bool = False,
             args: list[str] | None = None, origin: str = "script:") -> None:
    """A file run as a program (`./x`, `bash x`, `source x`): executes it; shell scripts are
    analysed (other interpreters' scripts are only `executes`)."""
    path = call.effect("executes", field)
    if path is None:
        if field.value is not None:
            return  # empty word
        call.opaque("command", f"the script to run is not static ({field.reason})")
        call.opaque(ALL_KINDS, "the script to run is not static")
        return
    if not os.path.isfile(path):
        if any(path in call.result.effects[k] for k in ("writes", "links")) or not os.path.lexists(path):
            call.opaque("command", f"script {path} does not exist before the command line runs")
            call.opaque(ALL_KINDS, f"script {path} is not there to analyse")
        return
    if not shell and not _is_shell_script(call, path):
        return
    if not _depth_ok(call, f"script {path}"):
        return
    content = read_script(call, path)
    if content is None:
        return
    if share:
        state = call.state
    else:
        state = call.state.child(call.walker, call.cwd, call.env, args or [])
    call.walker.run_string(content, state, origin + path)


def _is_shell_script(call: Call, path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError as exc:
        call.opaque("command", f"{path} cannot be read ({exc.strerror or exc})")
        call.opaque(ALL_KINDS, f"{path} cannot be read")
        return False
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
        if not words:
            return True
        prog = os.path.basename(words[0])
        if prog == "env":
            rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
            prog = os.path.basename(rest[0]) if rest else ""
        return prog in SHELLS
    return b"\0" not in head and not head.startswith(b"\x7fELF")


# -- handlers -----------------------------------------------------------------------------------
SHELL_VALUE_OPTS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})


def shell(call: Call) -> None:
    args = call.args
    if call.name == "busybox":
        if args and args[0].value in SHELLS:
            args = args[1:]
        elif args:
            from cupcake_py.shell.semantics import execute

            execute(call.walker, call.state, args, call.env, call.stdin, [])
            return
    code_mode = stdin_mode = False
    i = 0
    while i < len(args):
        v = args[i].value
        if v is None or v in ("-", "--") or v[:1] not in "-+":
            if v in ("-", "--"):
                i += 1
            break
        if v in SHELL_VALUE_OPTS:
            if v in ("--rcfile", "--init-file") and i + 1 < len(args):
                run_file(call, args[i + 1], shell=True, share=True)
            i += 2
            continue
        if not v.startswith("--"):
            code_mode = code_mode or "c" in v[1:]
            stdin_mode = stdin_mode or "s" in v[1:]
        i += 1
    operands = args[i:]
    if code_mode:
        if not operands:
            call.opaque("command", "shell -c without code")
            return
        positional = [f.value or "" for f in operands[2:]] if all(f.value is not None for f in operands[1:]) \
            else None
        run_code(call, operands[0], "bash -c", args=positional)
    elif operands and not stdin_mode:
        positional = [f.value or "" for f in operands[1:]] if all(f.value is not None for f in operands[1:]) \
            else None
        run_file(call, operands[0], shell=True, args=positional)
    else:
        stdin_script(call)


def stdin_script(call: Call) -> None:
    """A shell reading its program from stdin: a redirected file, a here-document, or the
    output of a static `cat FILE` / `echo`/`printf` pipeline stage."""
    src = call.stdin
    if src is None:
        return
    kind, value = src
    if kind == "file" and isinstance(value, str):
        run_file(call, Field(value), shell=True, origin="stdin-script:")
        return
    if kind == "text" and isinstance(value, str):
        run_code(call, Field(value), "stdin-script:-")
        return
    prev = value if kind == "cmd" else None
    if prev is not None:
        name = getattr(prev, "name", None)
        fields: list[Field] = list(getattr(prev, "fields", [])[1:])
        if name == "cat" and fields and all(f.value is not None and not f.value.startswith("-") for f in fields):
            for f in fields:
                run_file(call, Field(absolute_path(f.value or "", getattr(prev, "cwd", None))) if
                         absolute_path(f.value or "", getattr(prev, "cwd", None)) else Field(None, reason="cwd"),
                         shell=True, origin="stdin-script:")
            return
        if name in ("echo", "printf") and all(f.value is not None for f in fields):
            words = [f.value or "" for f in fields]
            if name == "echo":
                while words and words[0] in ("-n", "-e", "-E"):
                    words = words[1:]
            elif any("%" in w or "\\" in w for w in words[:1]):
                words = []
            if words:
                run_code(call, Field(" ".join(words)), "stdin-script:-")
                return
    reason = str(value) if kind == "opaque" else "the program a shell reads from its input is not static"
    call.opaque("command", reason)
    call.opaque(ALL_KINDS, reason)


def eval_(call: Call) -> None:
    run_code(call, join_code(call.args), "eval", share=True)


def source(call: Call) -> None:
    if not call.args:
        return
    args = call.args[1:]
    positional = [f.value or "" for f in args] if args and all(f.value is not None for f in args) else None
    run_file(call, call.args[0], shell=True, share=True, args=positional)


def trap(call: Call) -> None:
    operands = [f for f in call.args if f.value is None or not f.value.startswith("-")]
    if len(operands) >= 2:
        run_code(call, operands[0], "eval", share=True)


def cd(call: Call) -> None:
    state = call.state
    operands = [f for f in call.args if f.value is None or not f.value.startswith("-") or f.value == "-"]
    old = state.cwd
    if call.name == "popd":
        state.cwd = state.dirstack.pop() if state.dirstack else None
    elif call.name == "pushd" and not operands:
        if not state.dirstack:
            state.cwd = None
        else:
            state.cwd, state.dirstack[-1] = state.dirstack[-1], old
    else:
        target = operands[0] if operands else None
        if target is None:
            known, home = state.lookup("HOME")
            new = home if known else None
        elif target.value == "-":
            known, prev = state.lookup("OLDPWD")
            new = prev if known else None
        elif target.value is not None and target.value.startswith(("+", "-")) and call.name == "pushd":
            new = None
        else:
            new = resolve_dir(target, old)
        if new is not None and not (os.path.isdir(new) or os.path.realpath(new) in state.made_dirs):
            call.opaque("command", f"cd to {new}, which does not exist before the command line runs")
            new = None
        if call.name == "pushd":
            state.dirstack.append(old)
        state.cwd = os.path.normpath(new) if new is not None else None
    if old is not None:
        state.assign("OLDPWD", old)
    if state.cwd is None:
        call.cmd.opaque.append("the directory after this command is not known statically")


def read(call: Call) -> None:
    """Builtins that set variables from run-time input (read, mapfile, getopts, printf -v)."""
    if call.name == "printf":
        parsed = options.parse(call.args, {"val": "v"}, posix=True)
        for f in parsed.values("-v"):
            if f.value is not None:
                call.state.invalidate(f.value)
        return
    parsed = options.parse(call.args, {"val": "adinNptuCcOs"}, posix=False)
    names = [f.value for f in parsed.operands if f.value is not None]
    names += [f.value for f in parsed.values("-a") if f.value is not None]
    if call.name == "getopts":
        names = names[1:2]
    if not names:
        names = ["REPLY"] if call.name == "read" else ["MAPFILE"]
    for name in names:
        call.state.invalidate(name)
    for f in parsed.values("-u"):
        del f


def set_(call: Call) -> None:
    state = call.state
    if call.name == "shift":
        n = int(call.args[0].value) if call.args and (call.args[0].value or "").isdigit() else 1
        state.args = state.args[n:] if state.args is not None else None
        return
    if not call.args:
        call.result.fact("env_dump")
        return
    values = [f.value for f in call.args]
    if "--" in values:
        rest = values[values.index("--") + 1:]
        state.args = [v for v in rest if v is not None] if None not in rest else None
    elif values[0] is not None and values[0] in ("-o", "+o") and len(values) == 1:
        return
    elif values[0] is None or not values[0].startswith(("-", "+")):
        state.args = [v for v in values if v is not None] if None not in values else None


INTERP: dict[str, dict[str, object]] = {
    "python": {"inline": ("-c",), "module": ("-m",), "val": "WXQ"},
    "node": {"inline": ("-e", "--eval", "-p", "--print"), "val": "r",
             "lval": ("require", "import", "loader", "experimental-loader", "input-type", "eval", "print")},
    "perl": {"inline": ("-e", "-E"), "val": "IMx", "oval": "il0", "inplace": "-i"},
    "ruby": {"inline": ("-e",), "val": "IrCEF", "oval": "i", "inplace": "-i"},
    "php": {"inline": ("-r", "-R", "-B", "-E"), "val": "cdfz", "script_opt": "-f"},
    "lua": {"inline": ("-e",), "val": "l"}, "luajit": {"inline": ("-e",), "val": "lj"},
    "osascript": {"inline": ("-e",), "val": "l"},
    "pwsh": {"inline": ("-c", "-Command", "-command", "-EncodedCommand"), "script_opt": "-File"},
    "powershell": {"inline": ("-c", "-Command", "-command", "-EncodedCommand"), "script_opt": "-File"},
    "fish": {"inline": ("-c", "--command")}, "expect": {"inline": ("-c",)},
    "Rscript": {"inline": ("-e",)}, "julia": {"inline": ("-e", "-E")}, "groovy": {"inline": ("-e",)},
    "scala": {"inline": ("-e",)}, "deno": {"subcommands": True}, "bun": {"subcommands": True},
}


def interp(call: Call) -> None:
    from cupcake_py.shell.semantics import canonical

    spec = INTERP.get(canonical(call.name), {})
    parsed = options.parse(call.args, spec, posix=True)
    inline = tuple(spec.get("inline", ()))  # type: ignore[arg-type]
    rest = call.args[parsed.end:]
    if spec.get("subcommands") and rest and rest[0].value in ("eval", "-e"):
        call.opaque(INLINE_KINDS, INLINE)
        return
    if spec.get("subcommands") and rest and rest[0].value == "run":
        rest = [f for f in rest[1:] if f.value is None or not f.value.startswith("-")]
    if parsed.has(*inline):
        call.opaque(INLINE_KINDS, INLINE)
        if spec.get("inplace") and parsed.has(str(spec["inplace"])):
            for f in rest:
                call.effect("reads+writes", f)
        return
    if parsed.has(*spec.get("module", ())):  # type: ignore[arg-type]
        return
    script = parsed.values(str(spec.get("script_opt", "")))
    target = script[0] if script else (rest[0] if rest else None)
    if target is None or target.value == "-":
        if call.stdin is not None:
            call.opaque(INLINE_KINDS, f"{INLINE} read from input")
        return
    call.effect("executes", target)
    if spec.get("inplace") and parsed.has(str(spec["inplace"])):
        for f in rest[1:]:
            call.effect("reads+writes", f)


AWK_ACTIONS = re.compile(r"system\s*\(|\|\s*(?:getline|\")|>\s*\"|>>|print[f]?\s*>|getline\s*<|\bclose\s*\(")


def awk(call: Call) -> None:
    parsed = options.parse(call.args, {"val": "fvF", "lval": ("file", "assign", "field-separator", "include")})
    files = parsed.values("-f", "--file")
    operands = parsed.operands
    if files:
        for f in files:
            call.effect("reads", f)
        call.opaque("writes+deletes+executes", "awk program file may write files or run commands")
    elif operands:
        program = operands[0]
        operands = operands[1:]
        if program.value is None:
            call.opaque(ALL_KINDS, "awk program known only at run time")
        elif AWK_ACTIONS.search(program.value):
            call.opaque("writes+deletes+executes", "awk program writes files or runs commands")
    for f in operands:
        if f.value is not None and re.match(r"^[A-Za-z_]\w*=", f.value):
            continue
        call.effect("reads", f)


def dd(call: Call) -> None:
    for f in call.args:
        if f.value is None:
            call.opaque("reads+writes", f.reason or "dd operand known only at run time")
            continue
        key, eq, value = f.value.partition("=")
        if eq and key in ("if", "of"):
            call.effect("reads" if key == "if" else "writes", Field(value, pattern=f.pattern))


def find(call: Call) -> None:
    from cupcake_py.shell.semantics import execute

    args = call.args
    i = 0
    while i < len(args) and args[i].value in ("-H", "-L", "-P") or (i < len(args) and (args[i].value or "")
                                                                    .startswith("-O")):
        i += 1
    roots: list[Field] = []
    while i < len(args) and (args[i].value is None or not (args[i].value or "").startswith(("-", "(", "!", ")"))):
        roots.append(args[i])
        i += 1
    roots = roots or [Field(".")]
    paths = [call.effect("reads", r) for r in roots]
    for p in paths:
        if p is not None:
            call.result.recursive["reads"][p] = None
    where = ", ".join(r.value or "?" for r in roots)
    while i < len(args):
        v = args[i].value
        if v == "-delete":
            for r in roots:
                p = call.effect("deletes", r)
                if p is not None:
                    call.result.recursive["deletes"][p] = None
        elif v in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j].value not in (";", "+"):
                j += 1
            inner = [Field(None, reason=f"find supplies the file names (under {where})", split=True)
                     if (f.value is not None and "{}" in f.value) else f for f in args[i + 1:j]]
            if inner:
                state = call.state.copy()
                if v in ("-execdir", "-okdir"):
                    state.cwd = None
                execute(call.walker, state, inner, {}, None, [])
            i = j
        elif v in ("-fprint", "-fprint0", "-fls", "-fprintf") and i + 1 < len(args):
            call.effect("writes", args[i + 1])
            i += 1
        elif v == "-files0-from" and i + 1 < len(args):
            call.effect("reads", args[i + 1])
            i += 1
        elif v is None:
            call.opaque("command", args[i].reason or "find expression known only at run time")
        i += 1


TAR_VAL = "fCTXbIKLgHVNM"
TAR_LVAL = ("file", "directory", "files-from", "exclude-from", "exclude", "use-compress-program", "to-command",
            "checkpoint-action", "owner", "group", "mode", "mtime", "transform", "xform", "format", "label",
            "newer", "after-date", "blocking-factor", "index-file", "info-script", "new-volume-script",
            "rmt-command", "rsh-command", "suffix", "strip-components", "newer-mtime", "exclude-tag",
            "listed-incremental", "record-size", "tape-length", "volno-file", "warning", "compress-program")


def tar(call: Call) -> None:
    args = list(call.args)
    if args and args[0].value is not None and not args[0].value.startswith("-"):
        letters = args[0].value
        args = [Field("-" + c) for c in letters] + args[1:]
        # old-style: value letters take the following operands in order
        fixed: list[Field] = []
        values = args[len(letters):]
        for flag in args[:len(letters)]:
            fixed.append(flag)
            if (flag.value or "")[1:] in TAR_VAL and values:
                fixed.append(values.pop(0))
        args = fixed + values
    parsed = options.parse(args, {"val": TAR_VAL, "lval": TAR_LVAL})
    create = parsed.has("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate",
                        "--concatenate", "--delete")
    extract = parsed.has("-x", "--extract", "--get")
    dirs = parsed.values("-C", "--directory")
    here = call.cwd
    if dirs:
        here = resolve_dir(dirs[-1], call.cwd)
    for f in parsed.values("-f", "--file"):
        if f.value != "-":
            call.effect("writes" if create else "reads", f)
    for f in parsed.values("-T", "--files-from", "-X", "--exclude-from"):
        call.effect("reads", f)
    for f in parsed.values("-I", "--use-compress-program", "--compress-program"):
        call.effect("executes", Field((f.value or "").split()[0]) if f.value else f)
    for f in parsed.values("--to-command", "--checkpoint-action", "--info-script", "--new-volume-script",
                           "--rsh-command", "--rmt-command"):
        if f.value is not None and (not f.value.startswith(("dot", "bell", "echo", "ttyout", "sleep", "totals"))
                                    or f.value.startswith("exec")):
            call.opaque("command", "tar runs a command given in its options")
            call.opaque(ALL_KINDS, "tar runs a command given in its options")
    saved, call.cwd = call.cwd, here
    try:
        for f in parsed.operands:
            if create:
                p = call.effect("reads", f)
                if p is not None:
                    call.result.recursive["reads"][p] = None
            elif extract:
                call.effect("writes", f)
        if extract and not parsed.has("-O", "--to-stdout"):
            if here is not None:
                call.result.recursive["writes"][os.path.realpath(here)] = None
            if not parsed.operands:
                call.opaque("writes", "the archive's members (the files written) are known only at run time")
        if parsed.has("--remove-files"):
            for f in parsed.operands:
                call.effect("deletes", f)
    finally:
        call.cwd = saved


def patch(call: Call) -> None:
    parsed = options.parse(call.args, {"val": "pidoBrzDVYgF", "lval": ("strip", "input", "directory", "output",
                                                                     "prefix", "reject-file", "suffix", "fuzz")})
    strip = next((int(f.value) for f in parsed.values("-p", "--strip") if (f.value or "").isdigit()), None)
    dry = parsed.has("--dry-run", "-C", "--check")
    dirs = parsed.values("-d", "--directory")
    base = resolve_dir(dirs[-1], call.cwd) if dirs else call.cwd
    for f in parsed.values("-o", "--output", "-r", "--reject-file"):
        call.effect("writes", f)
    inputs = parsed.values("-i", "--input")
    operands = parsed.operands
    if len(operands) >= 2:
        inputs = inputs or [operands[1]]
    content = diff_source(call, inputs[0] if inputs else None)
    if operands:
        saved, call.cwd = call.cwd, base
        call.effect("reads" if dry else "reads+writes", operands[0])
        call.cwd = saved
        return
    apply_diff(call, content, strip, base, dry, "patch")


def diff_source(call: Call, field: Field | None) -> str | None:
    """The text of a patch given as a file (or stdin), read within the byte budget."""
    if field is not None:
        path = call.effect("reads", field)
        if path is None or not os.path.isfile(path):
            return None
        return read_script(call, path)
    if call.stdin is None:
        return None
    kind, value = call.stdin
    if kind == "file" and isinstance(value, str):
        return read_script(call, value)
    if kind == "text" and isinstance(value, str):
        return value
    return None


def apply_diff(call: Call, content: str | None, strip: int | None, base: str | None, dry: bool, what: str) -> None:
    if content is None:
        if not dry:
            call.opaque("writes+deletes", f"{what} targets come from a diff that is not known statically")
        return
    saved, call.cwd = call.cwd, base
    try:
        for kind, path in diffs.targets(content, strip):
            call.effect("reads" if dry else kind, Field(path))
    finally:
        call.cwd = saved


CURL_VAL = "oDdFTKHXAeubcEmrwxzyYCUQ"
CURL_LVAL = ("output", "dump-header", "data", "data-binary", "data-raw", "data-ascii", "data-urlencode", "form",
             "form-string", "upload-file", "config", "header", "request", "user-agent", "referer", "user", "cookie",
             "cookie-jar", "cert", "key", "cacert", "capath", "max-time", "range", "write-out", "proxy",
             "trace", "trace-ascii", "stderr", "output-dir", "json", "url", "connect-timeout", "retry",
             "netrc-file", "resolve", "limit-rate", "time-cond", "quote", "continue-at")
WGET_VAL = "OoaPiendtTUwQlAR"
WGET_LVAL = ("output-document", "output-file", "append-output", "directory-prefix", "input-file", "post-file",
             "body-file", "execute", "load-cookies", "save-cookies", "user-agent", "header", "tries", "timeout",
             "user", "password", "level", "accept", "reject", "post-data", "method", "body-data", "wait")


def net(call: Call) -> None:
    call.result.fact("network")
    if call.name == "curl":
        parsed = options.parse(call.args, {"val": CURL_VAL, "lval": CURL_LVAL})
        for opt, value in parsed.opts:
            if value is None:
                continue
            if opt in ("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
                       "--stderr") and value.value != "-":
                call.effect("writes", value)
            elif opt in ("-T", "--upload-file", "-K", "--config", "-E", "--cert", "--key", "--cacert",
                         "--netrc-file"):
                call.effect("reads", value)
            elif opt in ("-d", "--data", "--data-binary", "--data-urlencode", "--json", "--data-ascii") and \
                    value.value is not None and "@" in value.value[:1] + value.value.partition("=")[2][:1]:
                call.effect("reads", Field(value.value.split("@", 1)[1]))
            elif opt in ("-F", "--form") and value.value is not None and re.search(r"=[@<]", value.value):
                call.effect("reads", Field(re.split(r"=[@<]", value.value, maxsplit=1)[1].split(";")[0]))
            elif value.value is None and opt in ("-d", "--data", "-F", "--form", "--data-binary"):
                call.opaque("reads", "data sent over the network is not static")
        if parsed.has("-O", "--remote-name", "--remote-name-all"):
            _url_names(call, parsed.operands, parsed.values("--output-dir"))
        return
    parsed = options.parse(call.args, {"val": WGET_VAL, "lval": WGET_LVAL})
    outputs = parsed.values("-O", "--output-document")
    for f in outputs + parsed.values("-o", "--output-file", "-a", "--append-output", "--save-cookies"):
        if f.value != "-":
            call.effect("writes", f)
    for f in parsed.values("-i", "--input-file", "--post-file", "--body-file", "--load-cookies"):
        call.effect("reads", f)
    for f in parsed.values("-e", "--execute"):
        call.opaque("writes", f"wget command {f.value!r} is not analysed")
    if parsed.has("-r", "--recursive", "-m", "--mirror"):
        call.opaque("writes", "wget --recursive writes files named by the server")
    elif not outputs:
        _url_names(call, parsed.operands, parsed.values("-P", "--directory-prefix"))


def _url_names(call: Call, urls: list[Field], dirs: list[Field]) -> None:
    base = resolve_dir(dirs[-1], call.cwd) if dirs else call.cwd
    for url in urls:
        if url.value is None:
            call.opaque("writes", "the downloaded file's name comes from a URL known only at run time")
            continue
        path = url.value.split("?", 1)[0].split("#", 1)[0]
        name = path.rstrip("/").rsplit("/", 1)[-1] if "://" in path and path.count("/") > 2 else ""
        saved, call.cwd = call.cwd, base
        call.effect("writes", Field(name or "index.html"))
        call.cwd = saved


INSTALL_VERBS = frozenset({"install", "i", "add", "update", "upgrade", "up", "ci", "sync", "get", "uninstall",
                           "remove", "rm", "un", "purge", "reinstall", "dist-upgrade", "full-upgrade", "lock",
                           "build-dep", "link", "tap", "global", "dlx", "create", "init"})
RUN_VERBS = {"uv": ("run", "tool"), "poetry": ("run",), "pipenv": ("run",), "bundle": ("exec",),
             "npm": ("exec",), "pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"), "bun": ("x", "run"),
             "conda": ("run",), "mamba": ("run",), "pipx": ("run",), "cargo": ("run",)}


def pkg(call: Call) -> None:
    operands = [f for f in call.args if f.value is None or not f.value.startswith("-")]
    verb = operands[0].value if operands else None
    if verb in INSTALL_VERBS or (call.name == "dpkg" and any(f.value in ("-i", "--install") for f in call.args)):
        call.result.fact("package_install")
        call.result.fact("network")
    if verb in RUN_VERBS.get(call.name, ()) and len(operands) > 1:
        from cupcake_py.shell.semantics import execute

        start = call.args.index(operands[0]) + 1
        rest = call.args[start:]
        while rest and rest[0].value is not None and rest[0].value.startswith("-"):
            rest = rest[1:]
        if rest:
            execute(call.walker, call.state, rest, call.env, call.stdin, [])


def _git(call: Call) -> None:
    from cupcake_py.shell import git

    git.analyze_git(call)


HANDLERS: dict[str, Callable[[Call], None]] = {
    "shell": shell, "eval": eval_, "source": source, "trap": trap, "cd": cd, "read": read, "set": set_,
    "interp": interp, "awk": awk, "dd": dd, "find": find, "tar": tar, "patch": patch, "net": net, "pkg": pkg,
    "git": _git,
}
