"""Simple commands: words expanded, wrappers peeled, the command table applied.

In: a `command` node (or already expanded fields, for commands built by xargs/find -exec),
the walker and its state. Out: a `Cmd` appended to the result and the command's effects,
facts and opacity recorded; nested shell code (wrappers with code options, shells,
eval/source, scripts) goes back to the walker one level deeper. Redirections and
declarations (`export`, `declare` …) are handled here as well. Raises only `Deadline`.
"""

from __future__ import annotations

import os
import re

from cupcake_py.shell import embedded, git, handlers, name_lists, options, tools
from cupcake_py.shell.carriers import family_of
from cupcake_py.shell.model import Cmd, Field, decimal
from cupcake_py.shell.parse import REDIRECT_NODES, heredoc_tails
from cupcake_py.shell.table import COMMANDS, WRAPPERS, canonical
from cupcake_py.shell.words import QUOTED, text, words_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from tree_sitter import Node

    from cupcake_py.shell.walker import Ctx, State, Walker

ASSIGNMENT = r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$"
REDIRECT_KINDS = {">": "writes", ">>": "writes", ">|": "writes", "&>": "writes", "&>>": "writes",
                  "<": "reads", "<>": "reads+writes", ">&": "writes", "<&": "reads", "&>|": "writes"}
DECLARE_DUMP = frozenset({"-p", "-x", "+x"})


class Call:
    """One command being applied: who runs it, with which operands, where, reading what."""

    __slots__ = ("walker", "state", "cmd", "name", "args", "cwd", "stdin", "env", "result")

    def __init__(self, walker: Walker, state: State, cmd: Cmd, name: str, args: list[Field], cwd: str | None,
                 stdin: tuple[str, object] | None, env: dict[str, str | None]) -> None:
        self.walker = walker
        self.state = state
        self.cmd = cmd
        self.name = name
        self.args = args
        self.cwd = cwd
        self.stdin = stdin
        self.env = env
        self.result = walker.result

    def effect(self, kinds: str, field: Field) -> str | None:
        got = None
        for kind in kinds.split("+"):
            if kind != "none":
                got = self.result.path(kind, field, self.cwd, self.cmd, own=kind in ("deletes", "links"))
        return got

    def execute(self, fields: list[Field], state: State, env: dict[str, str | None],
                stdin: tuple[str, object] | None) -> Cmd | None:
        """A command this one runs (`find -exec`, `busybox sh`, `git bisect run`, `uv run`): the
        handlers reach the dispatcher through the call, so they never import this module."""
        return execute(self.walker, state, fields, env, stdin, [])

    def opaque(self, kinds: str, reason: str) -> None:
        for kind in kinds.split("+"):
            if kind != "none":
                self.result.mark(kind, reason, self.cmd)


def simple_command(walker: Walker, node: Node, state: State, ctx: Ctx) -> None:
    overlay: dict[str, str | None] = {}
    word_nodes: list[Node] = []
    redirect_nodes: list[Node] = []
    inline: list[Node] = []
    for child in node.children:
        if child.type == "variable_assignment":
            name, value = walker.assignment(child, state)
            if name is not None:
                overlay[name] = value
        elif child.type in REDIRECT_NODES:
            redirect_nodes.append(child)
        elif child.type == "command_name":
            word_nodes.extend(child.children)
        elif child.type in ("subshell", "compound_statement"):  # `time ( … )`, `time { …; }`
            inline.append(child)
        elif child.is_named and child.type not in ("comment", "subscript"):
            word_nodes.append(child)
    exp = walker.expander(state)
    fields: list[Field] = []
    for group in words_of(word_nodes):
        fields.extend(exp.fields(group))
    redirect_nodes, tails = heredoc_tails(redirect_nodes)
    records, stdin = redirects(walker, redirect_nodes, state, None)
    if not fields:
        for name, value in overlay.items():
            state.assign(name, value, export=name in state.exported)
        walker.run_tails(tails, state, None)
        return
    cmd = execute(walker, state, fields, overlay, stdin or ctx.stdin, records)
    for statement in inline:
        walker.statement(statement, state, ctx)
    walker.run_tails(tails, state, cmd)


def redirects(walker: Walker, nodes: list[Node], state: State,
              cmd: Cmd | None) -> tuple[list[dict[str, Any]], tuple[str, object] | None]:
    """Redirection records (file targets only) with their effects, and what stdin becomes."""
    records: list[dict[str, Any]] = []
    stdin: tuple[str, object] | None = None
    exp = walker.expander(state)
    for node in nodes:
        if node.type == "heredoc_redirect":
            stdin = _heredoc(walker, node, state)
            continue
        if node.type == "herestring_redirect":
            words = [c for c in node.children if c.is_named]
            field = exp.single(words) if words else Field("")
            stdin = ("text", field.value + "\n") if field.value is not None else ("opaque", field.reason or "")
            continue
        fd_node = next((c for c in node.children if c.type == "file_descriptor"), None)
        op = next((c.type for c in node.children if not c.is_named), ">")
        dest = [c for c in node.children if c.is_named and c.type != "file_descriptor"]
        targets = exp.fields(dest) if dest else [Field(None, reason="redirection without a target")]
        fd = decimal(text(walker.src, fd_node)) if fd_node is not None else None
        for target in targets:
            if op in (">&", "<&") and target.value is not None and (target.value.isdigit() or
                                                                   target.value.rstrip("-").isdigit() or
                                                                   target.value == "-"):
                continue  # fd duplication/closing: no file
            kinds = REDIRECT_KINDS.get(op, "writes")
            path = None
            for kind in kinds.split("+"):
                path = walker.result.path(kind, target, state.cwd, cmd)
            if path is None and target.value is None:
                walker.result.mark(kinds.split("+")[-1], target.reason or "redirection target is not static", None)
            records.append({"op": op, "fd": fd, "target": path})
            if op == "<" and fd in (None, 0) and path is not None:
                stdin = ("file", path)
    return records, stdin


def _heredoc(walker: Walker, node: Node, state: State) -> tuple[str, object]:
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    if body is None:
        return ("text", "")
    quoted = start is not None and any(q in text(walker.src, start) for q in "'\"\\")
    raw = text(walker.src, body)
    if quoted:
        content = raw
    else:
        chunks = walker.expander(state)._gapfill(body, body.start_byte, body.end_byte, True, frozenset())
        if any(k != QUOTED for k, _ in chunks):
            reason = next((t for k, t in chunks if k != QUOTED), "here-document is not static")
            return ("opaque", reason)
        content = "".join(t for _, t in chunks)
    if any(c.type == "<<-" for c in node.children):
        content = "\n".join(line.lstrip("\t") for line in content.split("\n"))
    return ("text", content)


def declaration(walker: Walker, node: Node, state: State) -> None:
    keyword = node.children[0].type if node.children else "declare"
    exp = walker.expander(state)
    fields = [Field(keyword)]
    flags: set[str] = set()
    names = 0
    for child in node.children[1:]:
        if child.type == "variable_assignment":
            name, value = walker.assignment(child, state)
            names += 1
            if name is not None:
                export = keyword == "export" or "-x" in flags or name in state.exported
                if flags & {"-n", "-i", "-a", "-A", "-l", "-u"}:  # nameref, arithmetic, arrays, case
                    value = None
                state.assign(name, value, export=export)
                fields.append(Field(None if value is None else f"{name}={value}",
                                    reason=None if value is not None else f"value of {name} is not static"))
        elif child.is_named:
            for f in exp.fields([child], glob=False):
                fields.append(f)
                if f.value is not None and f.value[:1] in "-+":
                    flags.add(f.value[:2] if len(f.value) == 2 else f.value)
                    flags.update("-" + c for c in f.value[1:])
                else:
                    names += 1
                    if f.value is not None and keyword == "export":
                        state.exported.add(f.value)
    cmd = Cmd(keyword, fields, [], state.cwd, walker.origin, walker.depth, {})
    walker.result.add_command(cmd)
    dump = (keyword == "export" and names == 0 and not ({"-f", "-n"} & flags)) or \
        (keyword in ("declare", "typeset") and names == 0 and not ({"-f", "-F"} & flags)) or \
        (keyword in ("declare", "typeset", "readonly", "local") and names == 0 and bool(DECLARE_DUMP & flags))
    if dump:
        walker.result.fact("env_dump")


def execute(walker: Walker, state: State, fields: list[Field], overlay: dict[str, str | None],
            stdin: tuple[str, object] | None, records: list[dict[str, Any]]) -> Cmd | None:
    """Peel wrappers, add the command, apply its semantics. Returns the command added."""
    wrappers: list[str] = []
    pending: list[tuple[str, Field]] = []
    env = dict(overlay)
    cwd = state.cwd
    result = walker.result
    while fields and fields[0].value is not None:
        name = os.path.basename(fields[0].value)
        spec = WRAPPERS.get(name)
        if spec is None or (name in state.functions and not wrappers):
            break
        parsed = options.parse(fields[1:], spec, posix=True)
        rest = fields[1 + parsed.end:]
        wrappers.append(name)
        if spec.get("privileged"):
            result.fact("privileged")
        for opt, value in parsed.opts:
            kind = spec.get("optk", {}).get(opt)
            if kind and value is not None:
                pending.append((kind, value))
        if parsed.has(*spec.get("noexec", ())) or (spec.get("noexec_without_code") and
                                                   not parsed.has(*spec.get("code", ())) and not rest):
            return _add(walker, state, fields, wrappers[:-1], cwd, env, records, pending)
        for value in parsed.values(*spec.get("cwd", ())):
            cwd = handlers.resolve_dir(value, cwd)
        if spec.get("cwd_unknown"):
            rest = rest[spec.get("pos", 0):]
            cwd = None
            for kind in ("reads", "writes", "deletes", "links", "executes"):
                pending.append((kind, Field(None, reason=f"{name}: the command's paths are inside another root")))
        elif spec.get("pos"):
            rest = rest[spec["pos"]:]
        if spec.get("assign"):
            while rest and rest[0].value is not None and (m := re.match(ASSIGNMENT, rest[0].value, re.S)):
                env[m.group(1)] = m.group(2)
                rest = rest[1:]
            if rest and rest[0].value is None and rest[0].split:
                env["?"] = None
        for value in parsed.values(*spec.get("split", ())):
            rest = handlers.split_words(value) + rest
        codes = parsed.values(*spec.get("code", ()))
        if codes or (spec.get("rest_code") and rest) or (parsed.has(*spec.get("shell", ())) and rest):
            cmd = _add(walker, state, fields, wrappers[:-1], cwd, env, records, pending)
            code = codes[0] if codes else handlers.join_code(rest)
            handlers.run_code(Call(walker, state, cmd, name, rest, cwd, stdin, env), code, "bash -c")
            return cmd
        if spec.get("edit_always") or parsed.has(*spec.get("edit", ())):
            cmd = _add(walker, state, fields, wrappers[:-1], cwd, env, records, pending)
            for f in rest:
                result.path("writes", f, cwd, cmd)
            return cmd
        if spec.get("xargs"):
            rest = handlers.xargs_command(parsed, rest, pending, stdin)
        if not rest:
            cmd = _add(walker, state, fields, wrappers[:-1], cwd, env, records, pending)
            if name == "env":
                result.fact("env_dump")
            return cmd
        fields = rest
    return _dispatch(walker, state, fields, wrappers, cwd, env, stdin, records, pending)


def _add(walker: Walker, state: State, fields: list[Field], wrappers: list[str], cwd: str | None,
         env: dict[str, str | None], records: list[dict[str, Any]], pending: list[tuple[str, Field]]) -> Cmd:
    head = fields[0].value if fields else None
    name = os.path.basename(head) if head is not None else None
    cmd = Cmd(name, fields, wrappers, cwd, walker.origin, walker.depth, env)
    cmd.redirects.extend(records)
    walker.result.add_command(cmd)
    for kind, value in pending:
        walker.result.path(kind, value, cwd, cmd)
    for var in ("LD_PRELOAD", "LD_AUDIT"):  # libraries loaded into the command run as code
        if var in env:
            libs = env[var]
            if libs is None:
                walker.result.mark("executes", f"{var} is not static", cmd)
            else:
                for lib in libs.replace(":", " ").split():
                    walker.result.path("executes", Field(lib), cwd, cmd)
    if head is None:
        reason = fields[0].reason if fields else "empty command"
        walker.result.mark("command", f"the command name is not static ({reason})", cmd)
        for kind in ("writes", "deletes", "executes"):
            walker.result.mark(kind, "the command name is not static", cmd)
    return cmd


def _dispatch(walker: Walker, state: State, fields: list[Field], wrappers: list[str], cwd: str | None,
              env: dict[str, str | None], stdin: tuple[str, object] | None, records: list[dict[str, Any]],
              pending: list[tuple[str, Field]]) -> Cmd:
    cmd = _add(walker, state, fields, wrappers, cwd, env, records, pending)
    cmd.stdin = stdin
    if cmd.name is None:
        for f in fields[1:]:
            if f.value is not None:
                handlers.maybe_read(walker.result, f, cwd, cmd)
        return cmd
    head = fields[0].value or ""
    call = Call(walker, state, cmd, cmd.name, fields[1:], cwd, stdin, env)
    if not wrappers and "/" not in head and handlers.expand_alias(call):
        return cmd
    if not wrappers and "/" not in head and walker.call_function(cmd.name, state, [
            f.value for f in fields[1:] if f.value is not None] if all(f.value is not None for f in fields[1:])
            else None, cmd):
        return cmd
    if "/" not in head and handlers.path_script(call, state.path_dirs):
        return cmd
    key = canonical(cmd.name)
    if key.startswith("git-") and key[4:] in git.KNOWN:  # the dashed binary: `git-commit` is `git commit`
        call.args = [Field(key[4:]), *call.args]
        key = "git"
    spec = COMMANDS.get(key)
    if "/" in head and (spec is None or handlers.local_program(call, head)):
        handlers.run_file(call, fields[0])  # ./rm is whatever that file is, not rm
        return cmd
    family = family_of(key)
    if spec is None:
        if family is None or family.program != "sql":
            for f in fields[1:]:
                handlers.maybe_read(walker.result, f, cwd, cmd)
    else:
        for tag in spec.get("facts", ()):
            walker.result.fact(tag)
        handler = spec.get("handler")
        if handler is not None:
            HANDLERS[handler](call)
        else:
            apply_spec(call, spec)
    if family is not None:  # strings it executes (cupcake_py/shell/carriers.py)
        embedded.apply(call, family)
    if key in name_lists.LISTS:  # names of the files it reads, from a list (cupcake_py/shell/name_lists.py)
        name_lists.apply(call, name_lists.LISTS[key])
    return cmd


def effective(spec: dict[str, Any], parsed: options.Parsed) -> dict[str, Any]:
    out = dict(spec)
    for opt, override in spec.get("when", {}).items():
        if parsed.has(opt):
            out.update(override)
    return out


def apply_spec(call: Call, spec: dict[str, Any]) -> options.Parsed:
    """The table-driven semantics: option values, operands by layout, extras, facts."""
    parsed = options.parse(call.args, spec, posix=bool(spec.get("posix")))
    spec = effective(spec, parsed)
    optk: dict[str, str] = spec.get("optk", {})
    for opt, value in parsed.opts:
        if opt in optk and value is not None:
            call.effect(optk[opt], value)
    operands = [f for f in parsed.operands if f.value != "-"]
    layout, _, kinds_s = spec.get("ops", "each:none").partition(":")
    kinds = kinds_s.split(",")
    if layout == "first" and parsed.has(*spec.get("script", ())):
        layout, kinds = "each", kinds[1:]
    for opt in spec.get("inline", ()):
        if parsed.has(opt):
            call.opaque("reads+writes+deletes", f"inline program ({call.name} {opt})")
    assigned = layout_kinds(layout, kinds, len(operands))
    remote = spec.get("remote", False)
    recursive = spec.get("recursive")
    is_recursive = recursive is True or (isinstance(recursive, tuple) and parsed.has(*recursive))
    if _roles_unknown(layout, kinds, operands):
        for kind in set(kinds):
            call.opaque(kind, "operands known only at run time may shift which operand is which")
    for f, kind in zip(operands, assigned, strict=True):
        if remote and f.value is not None and handlers.is_remote(f.value):
            call.result.fact("network")
            continue
        path = call.effect(kind, f)
        if path is not None and is_recursive:
            for k in kind.split("+"):
                if k != "none":
                    call.result.recursive[k][path] = None
        if path is not None and spec.get("makes_dirs", call.name == "mkdir"):
            call.state.made_dirs.add(path)
    if spec.get("into_dir") and len(operands) >= 2 and layout == "last":
        handlers.into_dir(call, operands[-1], operands[:-1], kinds[0])
    if spec.get("single_into_cwd") and len(operands) == 1 and operands[0].value is not None:
        call.effect(kinds[0], Field(os.path.basename(operands[0].value.rstrip("/")) or "."))
    for opt, (where, kind) in spec.get("extra", {}).items():
        if parsed.has(opt) and operands:
            for f in (operands[-1:] if where == "last" else operands[:-1] if where == "rest" else operands):
                path = call.effect(kind, f)
                if path is not None:
                    call.result.recursive[kind][path] = None
    if spec.get("implicit") and all(k == "none" for k in assigned):
        path = call.effect(spec["implicit"], Field("."))
        if path is not None and is_recursive:
            call.result.recursive[spec["implicit"]][path] = None
    for kind, reason in spec.get("opaque", {}).items():
        call.opaque(kind, reason)
    return parsed


def _roles_unknown(layout: str, kinds: list[str], operands: list[Field]) -> bool:
    """An opaque operand that may expand to any number of words hides which operand has
    the distinguished role (the first for `first`, the last for `last`, the leading ones
    for `pos`)."""
    split = [i for i, f in enumerate(operands) if f.value is None and f.split]
    if not split or layout == "each":
        return False
    if layout == "first":
        return split[0] == 0
    if layout == "last":
        return split[-1] == len(operands) - 1
    return split[0] < len(kinds) - 1


def layout_kinds(layout: str, kinds: list[str], n: int) -> list[str]:
    if n == 0:
        return []
    if layout == "last":
        return [kinds[1] if len(kinds) > 1 else kinds[0]] * (n - 1) + [kinds[0]]
    if layout == "first":
        return [kinds[0]] + [kinds[1] if len(kinds) > 1 else kinds[0]] * (n - 1)
    if layout == "pos":
        return [kinds[min(i, len(kinds) - 1)] for i in range(n)]
    return [kinds[0]] * n


# table.py `handler` names -> functions
HANDLERS: dict[str, Callable[[Call], None]] = {
    "shell": handlers.shell, "eval": handlers.eval_, "source": handlers.source, "trap": handlers.trap,
    "cd": handlers.cd, "at": handlers.at, "alias": handlers.alias, "shopt": handlers.shopt, "hash": handlers.hash_, "read": handlers.read, "set": handlers.set_, "interp": handlers.interp,
    "awk": tools.awk, "unzip": tools.unzip, "dd": tools.dd, "find": tools.find, "tar": tools.tar, "patch": tools.patch,
    "net": tools.net, "pkg": tools.pkg, "git": git.analyze_git,
}
