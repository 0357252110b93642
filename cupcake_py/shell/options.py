"""Command-line option grammar shared by the table-driven commands and wrappers.

In: the fields after the command name and a spec (see table.py: `val`, `oval`, `lval`,
`flags`). Out: the options seen (`-x` / `--long`, with their value field or None) and the
operands, in order. `--` ends options; `-` alone is an operand. With `posix` (wrappers,
find, xargs) options end at the first operand. An opaque field is an operand (it may
also be an option: callers treat opaque operands as unknown). Never raises.
"""

from __future__ import annotations

from cupcake_py.shell.model import Field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Parsed:
    __slots__ = ("opts", "operands", "end")

    def __init__(self) -> None:
        self.opts: list[tuple[str, Field | None]] = []
        self.operands: list[Field] = []
        self.end = 0  # index of the first field not consumed when parsing stopped (posix)

    def has(self, *names: str) -> bool:
        return any(o in names for o, _ in self.opts)

    def values(self, *names: str) -> list[Field]:
        return [v for o, v in self.opts if o in names and v is not None]


def parse(fields: list[Field], spec: dict[str, Any], *, posix: bool = False) -> Parsed:
    val: str = spec.get("val", "")
    oval: str = spec.get("oval", "")
    lval: tuple[str, ...] = spec.get("lval", ())
    flags: str | None = spec.get("flags")
    wval: tuple[str, ...] = spec.get("wval", ())
    lval2: tuple[str, ...] = spec.get("lval2", ())
    out = Parsed()
    i = 0
    n = len(fields)
    while i < n:
        f = fields[i]
        v = f.value
        if v is None or not v.startswith("-") or v == "-":
            if posix:
                out.end = i
                return out
            out.operands.append(f)
            i += 1
            continue
        if v == "--":
            out.operands.extend(fields[i + 1:])
            out.end = i + 1
            if posix:
                return out
            i = n
            break
        if v.startswith("--"):
            name, eq, inline = v.partition("=")
            if eq:
                out.opts.append((name, Field(inline, pattern=f.pattern)))
            elif name[2:] in lval2 and i + 2 < n:  # jq --arg NAME VALUE
                out.opts.append((name, fields[i + 2]))
                i += 2
            elif name[2:] in lval and i + 1 < n:
                out.opts.append((name, fields[i + 1]))
                i += 1
            else:
                out.opts.append((name, None))
            i += 1
            continue
        if v in wval:  # a single-dash word option taking a value (zip -TT CMD)
            out.opts.append((v, fields[i + 1] if i + 1 < n else None))
            i += 2
            continue
        body = v[1:]
        if flags is not None and any(c not in flags for c in body):
            out.operands.append(f)  # e.g. chmod -x FILE: a mode, not an option
            i += 1
            continue
        j = 0
        while j < len(body):
            c = body[j]
            opt = "-" + c
            if c in val:
                rest = body[j + 1:]
                if rest:
                    out.opts.append((opt, Field(rest)))
                elif i + 1 < n:
                    out.opts.append((opt, fields[i + 1]))
                    i += 1
                else:
                    out.opts.append((opt, None))
                break
            if c in oval:
                rest = body[j + 1:]
                out.opts.append((opt, Field(rest) if rest else None))
                break
            out.opts.append((opt, None))
            j += 1
        i += 1
    out.end = n
    return out
