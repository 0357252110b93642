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

from cupcake_py.shell import options
from cupcake_py.shell.model import Cmd, Field, absolute_path, decimal
from cupcake_py.shell.table import SHELLS

TYPE_CHECKING = False
if TYPE_CHECKING:

    from typing import Any

    from cupcake_py.shell.model import Result
    from cupcake_py.shell.semantics import Call
    from cupcake_py.shell.walker import State

RUNTIME_CODE = "shell code known only at run time"
STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
ALL_KINDS = "reads+writes+deletes+links+executes"
INLINE_KINDS = "reads+writes+deletes"
INLINE = "inline interpreter program"
REMOTE = r"^(?:[A-Za-z0-9_.+-]+@)?[A-Za-z0-9_.-]+:(?!//)"


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
    return bool(re.match(REMOTE, value)) and not value.startswith(("/", "./", "../"))


def maybe_read(result: Result, field: Field, cwd: str | None, cmd: Cmd) -> None:
    """Operands of commands the table does not know: existing paths are reads."""
    if field.value is None:
        if not field.prefix.startswith("-"):  # `-j$(nproc)` is an option, not a path
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


def _xargs_input(stdin: tuple[str, object] | None) -> list[str] | None:
    """The words xargs reads when its input is static text without quotes or backslashes
    (`echo a b | xargs …`, a here-string); None: known only at run time."""
    from cupcake_py.shell.outputs import static_output

    text: str | None = None
    if stdin is not None and stdin[0] == "text" and isinstance(stdin[1], str):
        text = stdin[1]
    elif stdin is not None and stdin[0] == "cmd" and isinstance(stdin[1], Cmd) and not stdin[1].redirects:
        text = static_output(stdin[1])
    if text is None or any(c in text for c in "'\"\\"):
        return None
    return text.split()


def xargs_command(parsed: options.Parsed, rest: list[Field], pending: list[tuple[str, Field]],
                  stdin: tuple[str, object] | None = None) -> list[Field]:
    """The command xargs runs: its operands (default echo) with the arguments it reads from
    its input: static words from `echo`/`printf`/here-strings, otherwise opaque."""
    command = rest or [Field("echo")]
    opaque = Field(None, reason="xargs supplies arguments from its input", split=True)
    words = _xargs_input(stdin) if not parsed.has("-0", "--null", "-d", "--delimiter", "-a", "--arg-file",
                                                   "-E", "-e", "--eof") else None
    values = [f.value for f in command]
    if ":::" in values or "::::" in values:  # GNU parallel: inputs follow ::: (files after ::::)
        cut = min(values.index(s) for s in (":::", "::::") if s in values)
        inputs = [f for f in command[cut + 1:] if f.value not in (":::", ":::+", "::::")]
        if "::::" in values:
            return command[:cut] + [Field(None, reason="parallel reads its arguments from files", split=True)]
        return command[:cut] + inputs
    repl = [v.value for v in parsed.values("-I", "--replace", "-i") if v.value is not None]
    if parsed.has("-i") and not repl:
        repl = ["{}"]
    if repl:
        if words is not None and len(words) == 1:
            return [Field(f.value.replace(repl[0], words[0])) if (f.value is not None and repl[0] in f.value) else f
                    for f in command]
        return [opaque if (f.value is not None and repl[0] in f.value) else f for f in command]
    if words is not None:
        return command + [Field(w) for w in words]
    return command + [opaque]


def _depth_ok(call: Call, what: str) -> bool:
    if call.walker.depth + 1 > call.result.budget.max_depth:
        call.opaque("command", f"{what} nested deeper than the analysis budget")
        call.opaque(ALL_KINDS, f"{what} nested deeper than the analysis budget")
        return False
    return True


def run_code(call: Call, code: Field, origin: str, *, share: bool = False,
             args: list[str] | None = None, arg0: str | None = None) -> None:
    """Analyse shell code one level deeper (a new shell, or the same one for eval/source)."""
    if code.value is None:
        call.opaque("command", f"{RUNTIME_CODE} ({code.reason})")
        call.opaque(ALL_KINDS, RUNTIME_CODE)
        return
    if not _depth_ok(call, origin):
        return
    state = call.state if share else call.state.child(call.walker, call.cwd, call.env, args or [])
    if not share:
        state.arg0 = arg0
    if share and call.cwd != call.state.cwd:
        state = call.state.copy()
        state.cwd = call.cwd
    call.walker.run_string(code.value, state, origin)


def read_script(call: Call, path: str, what: str = "script") -> str | None:
    """The whole script within the byte budget; None (and opacity recorded) otherwise."""
    written = any(path in call.result.effects[k] for k in ("writes", "deletes", "links"))
    if written:
        call.opaque("command", f"{what} {path} is changed by this command line before it runs")
        call.opaque(ALL_KINDS, f"{what} {path} is changed by this command line")
        return None
    try:
        size = os.path.getsize(path)
        remaining = call.result.budget.max_bytes - call.result.bytes_read
        if size > remaining:
            call.opaque("command", f"{what} {path} ({size} bytes) exceeds the analysis byte budget")
            call.opaque(ALL_KINDS, f"{what} {path} exceeds the analysis byte budget")
            return None
        with open(path, "rb") as fh:
            data = fh.read(remaining + 1)
    except OSError as exc:
        call.opaque("command", f"{what} {path} cannot be read ({exc.strerror or exc})")
        call.opaque(ALL_KINDS, f"{what} {path} cannot be read")
        return None
    call.result.bytes_read += len(data)
    if b"\0" in data:
        call.opaque("command", f"{what} {path} is binary (NUL bytes): not analysed as shell code")
        call.opaque(ALL_KINDS, f"{what} {path} is binary")
        return None
    if len(data) > remaining:
        call.opaque("command", f"{what} {path} exceeds the analysis byte budget")
        call.opaque(ALL_KINDS, f"{what} {path} exceeds the analysis byte budget")
        return None
    return data.decode("utf-8", "replace")


def run_file(call: Call, field: Field, *, shell: bool = False, share: bool = False,
             args: list[str] | None = None, origin: str = "script:") -> None:
    """A file run as a program (`./x`, `bash x`, `source x`): executes it; shell scripts are
    analysed (other interpreters' scripts are only `executes`)."""
    if field.value in STDIN_FILES:
        if shell:
            stdin_script(call)
        else:
            call.opaque(INLINE_KINDS, f"{INLINE} read from input")
        return
    path = call.effect("executes", field)
    if path is None:
        if field.value is not None:
            return  # empty word
        call.opaque("command", f"the script to run is not static ({field.reason})")
        call.opaque(ALL_KINDS, "the script to run is not static")
        return
    if os.path.isdir(path):
        return  # a directory does not run
    if _fresh_venv_activation(call, path):
        return
    if not os.path.isfile(path):
        reason = f"script {path} does not exist before the command line runs" if not os.path.lexists(path) else \
            f"script {path} is not a regular file (device, pipe or socket)"
        call.opaque("command", reason)
        call.opaque(ALL_KINDS, reason)
        return
    if any(path in call.result.effects[k] for k in ("writes", "links")):
        call.opaque("command", f"script {path} is changed by this command line before it runs")
        call.opaque(ALL_KINDS, f"script {path} is changed by this command line")
        return
    if not shell and not _is_shell_script(call, path):
        return
    call.effect("reads", Field(path))  # the shell reads the script (`source .env` loads its values)
    if not _depth_ok(call, f"script {path}"):
        return
    content = read_script(call, path)
    if content is None:
        return
    if share:
        state = call.state
    else:
        state = call.state.child(call.walker, call.cwd, call.env, args or [])
        state.arg0 = field.value
    call.walker.run_string(content, state, origin + path)


def _venv(call: Call, dirs: list[Field]) -> None:
    """`python -m venv DIR` writes DIR (its interpreter links, scripts and activation scripts)."""
    for f in dirs[:1]:
        p = call.effect("writes", f)
        if p is not None:
            call.result.recursive["writes"][p] = None
            call.result.venvs[p] = None


def _fresh_venv_activation(call: Call, path: str) -> bool:
    """`. DIR/bin/activate` of a virtual environment this line created with `python -m venv DIR`:
    the script is the venv module's own (it sets VIRTUAL_ENV, PATH and the prompt, and defines
    `deactivate`); it touches no file. Not when anything else in the line wrote, linked or deleted
    below DIR, or installed packages before (their code may rewrite it)."""
    venv = os.path.dirname(os.path.dirname(path))
    if venv not in call.result.venvs or os.path.basename(path) != "activate" or \
            os.path.basename(os.path.dirname(path)) != "bin" or "package_install" in call.result.facts:
        return False
    inside = venv.rstrip("/") + "/"
    for kind in ("writes", "links", "deletes"):
        if any(p.startswith(inside) for p in call.result.effects[kind]) or \
                any(p.startswith(inside) or p.startswith(venv + "*") for p in call.result.patterns[kind]):
            return False
    call.effect("reads", Field(path))
    return True


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
            call.execute(args, call.state, call.env, call.stdin)
            return
    for var in ("BASH_ENV", "ENV"):  # a non-interactive shell sources these first
        known, value = (True, call.env[var]) if var in call.env else call.state.lookup(var)
        if var in call.env or (known and var in call.state.exported and value):
            run_file(call, Field(value) if value is not None else Field(None, reason=f"${var} is not static"),
                     shell=True)
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
        arg0 = operands[1].value if len(operands) > 1 else call.name
        run_code(call, operands[0], "bash -c", args=positional, arg0=arg0)
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
    if kind == "cmd" and isinstance(value, Cmd):
        fields = value.fields[1:]
        if value.name == "cat" and fields and all(f.value is not None and not f.value.startswith("-")
                                                  for f in fields):
            for f in fields:
                path = absolute_path(f.value or "", value.cwd)
                run_file(call, Field(path) if path else Field(None, reason="cat in an unknown directory"),
                         shell=True, origin="stdin-script:")
            return
        from cupcake_py.shell.outputs import static_output

        text = static_output(value, call.result) if not value.redirects else None
        if text is not None:
            run_code(call, Field(text), "stdin-script:-")
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


def alias(call: Call) -> None:
    """`alias NAME=VALUE`: later commands named NAME in this line run VALUE (bash expands
    aliases in scripts once `shopt -s expand_aliases` is on; assumed on)."""
    for f in call.args:
        if f.value is None:
            call.opaque("command", "an alias defined with a value known only at run time")
            continue
        name, eq, value = f.value.partition("=")
        if eq:
            call.state.aliases[name] = value


SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/", "/lib/", "/opt/homebrew/", "/nix/store/", "/snap/")


def local_program(call: Call, head: str) -> bool:
    """A command word with a slash outside the system directories (`./ls`, `/tmp/x/rm`) that
    is not a compiled program: it runs as the file it is, whatever its name."""
    path = absolute_path(head, call.cwd)
    if path is None:
        return True
    real = os.path.realpath(path)
    if real.startswith(SYSTEM_DIRS) and path.startswith(SYSTEM_DIRS):
        return False
    if not os.path.isfile(real):
        return True
    try:
        with open(real, "rb") as fh:
            return not fh.read(4).startswith(b"\x7fELF")
    except OSError:
        return True


def path_script(call: Call, dirs: list[str]) -> bool:
    """A command name found in a PATH directory this line put first: when that file is a
    shell script (or is written by this line) it is what runs, so it is analysed."""
    for d in dirs:
        base = absolute_path(d or ".", call.cwd)
        if base is None:
            continue
        candidate = os.path.join(base, call.name)
        written = os.path.realpath(candidate) in call.result.effects["writes"]
        if written or (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            if written or _is_shell_script(call, candidate):
                run_file(call, Field(candidate), shell=True)
                return True
            return False  # a program: the table's semantics of the name apply
    return False


def hash_(call: Call) -> None:
    """`hash -p FILE NAME`: later commands named NAME run FILE."""
    parsed = options.parse(call.args, {"val": "pt"})
    for f in parsed.values("-p"):
        for name in parsed.operands:
            if name.value is None or f.value is None:
                call.opaque("command", "hash -p with a name or file known only at run time")
                call.opaque(ALL_KINDS, "hash -p with a name or file known only at run time")
            else:
                import shlex

                call.state.aliases[name.value] = shlex.quote(f.value)


def expand_alias(call: Call) -> bool:
    value = call.state.aliases.get(call.name)
    if call.name not in call.state.aliases:
        return False
    if value is None or any(f.value is None for f in call.args):
        call.opaque("command", f"alias {call.name} expands to code known only at run time")
        call.opaque(ALL_KINDS, f"alias {call.name} is not static")
        return True
    import shlex

    code = " ".join([value] + [shlex.quote(f.value or "") for f in call.args])
    run_code(call, Field(code), "eval", share=True)
    return True


def at(call: Call) -> None:
    """`at`/`batch` run a shell program later: from -f FILE or from stdin."""
    parsed = options.parse(call.args, {"val": "fqtM", "flags": None})
    files = parsed.values("-f")
    if files:
        run_file(call, files[0], shell=True)
    elif not parsed.has("-l", "-d", "-r", "-c"):
        stdin_script(call)


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
            new = _cdpath(state, target.value) or resolve_dir(target, old)
        state.cd_result = "unsure"  # the failure path (cwd unchanged) stays possible
        real = os.path.realpath(new) if new is not None else ""
        changed = any(real in call.result.effects[k] for k in ("writes", "deletes", "links"))
        if new is not None and os.path.isdir(new):
            if not changed:  # chmod 000 d; cd d … may fail: then it is unsure
                state.cd_result = "sure"
        elif new is not None and (real in state.made_dirs or real in call.result.effects["writes"]):
            state.cd_result = "sure"  # created earlier in the line (mkdir, git clone …)
        elif new is not None:
            call.cmd.opaque.append(f"cd to {new}, which does not exist before the command line runs")
            new = None
        if call.name == "pushd":
            state.dirstack.append(old)
        state.cwd = os.path.normpath(new) if new is not None else None
    if state.cd_result is None:
        state.cd_result = "sure" if state.cwd is not None else "unsure"
    if old is not None:
        state.assign("OLDPWD", old)
    if state.cwd is None:
        call.cmd.opaque.append("the directory after this command is not known statically")


def _cdpath(state: State, target: str | None) -> str | None:
    """`cd NAME` searches $CDPATH first (when the line sets it)."""
    if target is None or target.startswith(("/", "./", "../")) or target in (".", ".."):
        return None
    known, value = state.lookup("CDPATH")
    if not known or not value:
        return None
    for entry in value.split(":"):
        base = absolute_path(entry or ".", state.cwd)
        if base is not None and os.path.isdir(os.path.join(base, target)):
            return os.path.normpath(os.path.join(base, target))
    return None


def read(call: Call) -> None:
    """Builtins that set variables from run-time input (read, mapfile, getopts, printf -v)."""
    if call.name == "let":  # arithmetic: every name it mentions may change
        for f in call.args:
            for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", f.value or ""):
                call.state.invalidate(name)
        return
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


GLOB_SHOPTS = frozenset({"dotglob", "globstar", "nullglob", "failglob", "nocaseglob"})


def _switch(state: State, option: str, on: bool) -> None:
    if state.shopts is not None:
        state.shopts = state.shopts | {option} if on else state.shopts - {option}


def shopt(call: Call) -> None:
    """`shopt -s/-u NAME…`: the glob options later expansions follow."""
    parsed = options.parse(call.args, {})
    on = parsed.has("-s")
    if not (on or parsed.has("-u")):
        return
    for f in parsed.operands:
        if f.value is None:
            call.state.shopts = None
        elif f.value in GLOB_SHOPTS:
            _switch(call.state, f.value, on)


def _shift(call: Call) -> None:
    """`shift [n]`. A count not known statically leaves the positional parameters unknown. A
    count that is not a number, or larger than their number, makes bash fail the shift and go on
    with them unchanged (dash stops the script): they are kept, which covers both."""
    state = call.state
    if state.args is None:
        return
    if not call.args:
        state.args = state.args[1:]
        return
    raw = call.args[0].value
    if raw is None:
        state.args = None
        return
    n = decimal(raw)
    if n is not None and n <= len(state.args):
        state.args = state.args[n:]


def set_(call: Call) -> None:
    state = call.state
    if call.name == "shift":
        _shift(call)
        return
    if not call.args:
        call.result.fact("env_dump")
        return
    values = [f.value for f in call.args]
    for n, v in enumerate(values):
        if v is None:
            state.shopts = None
        elif v[:1] in "-+" and v != "--" and "f" in v[1:] and not v.startswith("--"):
            _switch(state, "noglob", v[0] == "-")
        elif v in ("-o", "+o") and n + 1 < len(values) and values[n + 1] == "noglob":
            _switch(state, "noglob", v == "-o")
    if "--" in values:
        rest = values[values.index("--") + 1:]
        state.args = [v for v in rest if v is not None] if None not in rest else None
    elif values[0] is not None and values[0] in ("-o", "+o") and len(values) == 1:
        return
    elif values[0] is None or not values[0].startswith(("-", "+")):
        state.args = [v for v in values if v is not None] if None not in values else None


INTERP: dict[str, dict[str, Any]] = {
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
    from cupcake_py.shell.table import canonical

    spec = dict(INTERP.get(canonical(call.name), {}))
    inline = tuple(spec.get("inline", ()))
    spec["val"] = str(spec.get("val", "")) + "".join(o[1] for o in inline if len(o) == 2)
    spec["lval"] = tuple(spec.get("lval", ())) + tuple(o[2:] for o in inline if o.startswith("--"))
    parsed = options.parse(call.args, spec, posix=True)
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
    if parsed.has(*spec.get("module", ())):
        if rest and rest[0].value in ("venv", "virtualenv"):  # `-m NAME`: the module is the first operand
            _venv(call, [f for f in rest[1:] if f.value is None or not f.value.startswith("-")])
        return
    script = parsed.values(str(spec.get("script_opt", "")))
    target = script[0] if script else (rest[0] if rest else None)
    if target is None or target.value == "-" or target.value in STDIN_FILES:
        if call.stdin is not None:
            call.opaque(INLINE_KINDS, f"{INLINE} read from input")
        return
    call.effect("executes", target)
    if spec.get("inplace") and parsed.has(str(spec["inplace"])):
        for f in rest[1:]:
            call.effect("reads+writes", f)
