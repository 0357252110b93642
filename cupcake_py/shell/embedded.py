"""Strings a program executes: the rows of cupcake_py/shell/carriers.py applied to one command.

In: a `semantics.Call` whose command belongs to a family of `carriers.FAMILIES` (after the
command table has applied its operand semantics). Out: effects, facts and opacity on the shared
result: shell code found in an option, a setting or a program text is analysed one level deeper
(opaque when it is not static); code in the program's own language is opaque in every kind, with
the family and the option in the reason; files named in a program text are effects. A program
text the analysis cannot read (not static, a script file that is missing, over the byte budget or
written earlier in the line, SQL read from standard input at run time) is opaque in every kind.
Raises only `Deadline`.
"""

from __future__ import annotations

import os
import re

from cupcake_py.shell import handlers
from cupcake_py.shell.model import Field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.shell.carriers import Family, Row
    from cupcake_py.shell.semantics import Call

_PATTERNS: dict[str, re.Pattern[str]] = {}  # text rows' expressions, compiled on first use


def pattern(where: str) -> re.Pattern[str]:
    """A text row's compiled expression (every row's compiles: tests/shell/test_carriers.py)."""
    got = _PATTERNS.get(where)
    if got is None:
        got = _PATTERNS[where] = re.compile(where, re.M)
    return got
_STDIN_NAMES = frozenset({"-", *handlers.STDIN_FILES})


def apply(call: Call, family: Family) -> None:
    """Apply `family`'s rows to the command `call`."""
    words = list(call.args)
    option_values, operands = _split(words, family)
    for row in family.rows:
        if row.how == "option":
            for value in option_values.get(row.where, []):
                _act(call, row, value, f"{call.name} {value[0]}")
        elif row.how == "key":
            option, key = row.where.split(" ", 1)
            for _, setting in _values(words, (option,)):
                if setting.value is None:
                    _opaque(call, f"{call.name} {option} value known only at run time (it may name a command)")
                    continue
                m = re.match(r"\s*([A-Za-z]+)\s*(?:=|\s)\s*(.*)\Z", setting.value, re.S)
                if m is not None and m.group(1).lower() == key.lower():
                    _act(call, row, (option, Field(m.group(2))), f"{call.name} {option} {key}")
        elif row.how == "env":
            if row.where in call.env:
                env_value = call.env[row.where]
                code = None if env_value is None else env_value.lstrip("|").replace("%s", "FILE")
                _act(call, row, (row.where, Field(code, reason=f"{row.where} is not static")),
                     f"{row.where} for {call.name}")
    if family.program in ("args", "first"):
        for f in (words if family.program == "args" else [w for w in words[:1] if not (w.value or "-").startswith("-")]):
            for row in family.rows:
                if row.how == "text" and f.value is not None and pattern(row.where).search(f.value):
                    _act(call, row, (f.value, Field(None, reason="run-time value")), f"{call.name} {f.value}")
        return
    for text, source in _program_texts(call, family, option_values, operands):
        for row in family.rows:
            if row.how != "text":
                continue
            for m in pattern(row.where).finditer(text):
                arg = m.group(m.lastindex or 0) if (m.lastindex and row.runs != "program") else None
                what = f"{call.name} {row.label} in {source}"
                _act(call, row, (source, Field(arg.strip() if arg is not None else None,
                                               reason=f"{what}")), what)


def _split(words: list[Field], family: Family) -> tuple[dict[str, list[tuple[str, Field]]], list[Field]]:
    """Values of the family's option rows (by row), and the operands (neither options nor
    their values)."""
    rows = [r for r in family.rows if r.how == "option"]
    takes_value = set(family.val) | set(family.text_opts) | set(family.script_opts) | \
        {o for r in rows for o in r.where.split()} | {r.where.split(" ", 1)[0] for r in family.rows if r.how == "key"}
    values: dict[str, list[tuple[str, Field]]] = {r.where: [] for r in rows}
    operands: list[Field] = []
    i = 0
    while i < len(words):
        f = words[i]
        v = f.value
        if v is None or not v.startswith("-") or v == "-":
            operands.append(f)
            i += 1
            continue
        if v == "--":
            operands.extend(words[i + 1:])
            break
        name, eq, inline = v.partition("=")
        value: Field | None = None
        if v in family.val2:
            i += 3
            continue
        if eq and name in takes_value:
            value = Field(inline)
        elif name in takes_value:
            value = words[i + 1] if i + 1 < len(words) else Field(None, reason="missing value")
            i += 1
        else:
            attached = next((o for o in takes_value if len(o) == 2 and v.startswith(o) and len(v) > 2), None)
            if attached is not None:
                name, value = attached, Field(v[2:])
        for r in rows:
            if value is not None and name in r.where.split():
                values[r.where].append((name, value))
        i += 1
    return values, operands


def _values(words: list[Field], options: tuple[str, ...]) -> list[tuple[str, Field]]:
    out = []
    for i, f in enumerate(words):
        v = f.value or ""
        for o in options:
            if v == o:
                out.append((o, words[i + 1] if i + 1 < len(words) else Field(None, reason="missing value")))
            elif v.startswith(o) and len(v) > len(o):
                out.append((o, Field(v[len(o):].lstrip("="))))
    return out


def _program_texts(call: Call, family: Family, options: dict[str, list[tuple[str, Field]]],
                   operands: list[Field]) -> list[tuple[str, str]]:
    """(program text, where it comes from) of the command; unreadable ones are made opaque."""
    words = list(call.args)
    texts: list[tuple[str, str]] = []
    inline = _values_exact(words, family.text_opts)
    scripts = _values_exact(words, family.script_opts)
    pieces: list[tuple[str, Field]] = list(inline)
    if family.program == "operand" and not inline and not scripts and operands:
        pieces.append(("the program", operands[0]))
    elif family.program == "sql":
        db, sql = (operands[0], operands[1:]) if operands else (None, [])
        if db is not None and db.value not in ("", ":memory:"):
            call.effect("reads+writes", db)
        pieces += [("the SQL", f) for f in sql]
        if not sql:
            texts += _stdin_text(call)
    for source, f in pieces:
        if f.value is None:
            _opaque(call, f"{call.name} {source} is known only at run time")
        else:
            texts.append((f.value, f"{call.name} {source}"))
    for option, f in scripts:
        text = _script(call, option, f)
        if text is not None:
            texts.append((text, f"{call.name} {option} {f.value}"))
    return texts


def _values_exact(words: list[Field], options: tuple[str, ...]) -> list[tuple[str, Field]]:
    out = []
    for i, f in enumerate(words):
        v = f.value or ""
        name, eq, inline = v.partition("=")
        if v in options:
            out.append((v, words[i + 1] if i + 1 < len(words) else Field(None, reason="missing value")))
        elif eq and name in options and name.startswith("--"):
            out.append((name, Field(inline)))
    return out


def _script(call: Call, option: str, f: Field) -> str | None:
    """The program text in the file an option names (read within the byte budget)."""
    if f.value is None or f.value in _STDIN_NAMES:
        _opaque(call, f"{call.name} {option}: the program file is known only at run time")
        return None
    path = call.effect("reads", f)
    if path is None:
        return None
    if not os.path.isfile(path):
        _opaque(call, f"{call.name} {option} {path}: the program file does not exist before the line runs")
        return None
    return handlers.read_script(call, path, f"{call.name} program file")


def _stdin_text(call: Call) -> list[tuple[str, str]]:
    """The program text on standard input: a here-document or static text, a file; none for no
    input; opaque otherwise."""
    from cupcake_py.shell.model import Cmd
    from cupcake_py.shell.outputs import static_output

    src = call.stdin
    if src is None:
        return []
    if src[0] == "text" and isinstance(src[1], str):
        return [(src[1], f"{call.name} standard input")]
    if src[0] == "file" and isinstance(src[1], str):
        text = handlers.read_script(call, src[1], f"{call.name} input file") if os.path.isfile(src[1]) else None
        if text is None:
            _opaque(call, f"{call.name} reads its program from {src[1]}, which cannot be read before the line runs")
            return []
        return [(text, f"{call.name} input {src[1]}")]
    if src[0] == "cmd" and isinstance(src[1], Cmd) and not src[1].redirects:
        out = static_output(src[1])
        if out is not None:
            return [(out, f"{call.name} standard input")]
    _opaque(call, f"{call.name} reads its program from standard input at run time")
    return []


def _opaque(call: Call, reason: str) -> None:
    call.opaque("command", reason)
    call.opaque(handlers.ALL_KINDS, reason)


def _act(call: Call, row: Row, value: tuple[str, Field], what: str) -> None:
    """Do what `row` says with the string `value` (option or source name, the string)."""
    field = value[1]
    runs = row.runs
    if runs == "env_dump":
        call.result.fact("env_dump")
        return
    if runs == "program":
        _opaque(call, f"{what}: {row.what}")
        return
    if runs == "output" and field.value is not None and field.value.startswith("|"):
        runs, field = "shell", Field(field.value[1:])
    elif runs == "output":
        runs = "writes"
    if runs == "shell":
        handlers.run_code(call, field, "bash -c")  # the program runs it with `sh -c`
        return
    if field.value is None:
        _opaque(call, f"{what}: {row.what} (the name is known only at run time)")
        return
    name = field.value.strip().strip("'\"")
    if name in _STDIN_NAMES and runs in ("executes", "reads"):
        _opaque(call, f"{what}: read from standard input")
        return
    call.effect(runs, Field(name))
