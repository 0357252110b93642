"""Readable text rendering of the IR (``format_policy(policy) -> str``), for debugging and
`--explain`-like output. Pure: no I/O, never fails on a well-typed ``Policy``.

Locals print as ``L<n>``, constant strings as their JSON text, booleans as ``true``/``false``;
each statement is one line ``<pseudo code>  @file:row:col``; nested blocks are indented.
"""

from __future__ import annotations

from collections.abc import Callable

from cupcake_py.ir import nodes as ir

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any


class _Printer:
    def __init__(self, policy: ir.Policy) -> None:
        self.policy = policy
        self.lines: list[str] = []

    def op(self, o: ir.Operand) -> str:
        if isinstance(o, ir.Local):
            return f"L{o.value}"
        if isinstance(o, ir.Bool):
            return "true" if o.value else "false"
        strings = self.policy.static.strings
        return _quoted(strings[o.value]) if 0 <= o.value < len(strings) else f"<string #{o.value}?>"

    def loc(self, s: ir.Stmt) -> str:
        files = self.policy.static.files
        name = files[s.file] if 0 <= s.file < len(files) else f"#{s.file}"
        return f"@{name}:{s.row}:{s.col}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def blocks(self, depth: int, blocks: tuple[ir.Block, ...]) -> None:
        for i, b in enumerate(blocks):
            self.emit(depth, f"block {i}:")
            self.block_body(depth + 1, b)

    def block_body(self, depth: int, b: ir.Block) -> None:
        for s in b.stmts:
            self.stmt(depth, s)

    def stmt(self, depth: int, s: ir.Stmt) -> None:
        render = _RENDER.get(type(s))
        text = render(self, s) if render else type(s).__name__  # every type has a renderer
        self.emit(depth, f"{text}  {self.loc(s)}")
        if isinstance(s, ir.BlockStmt):
            self.blocks(depth + 1, s.blocks)
        elif isinstance(s, ir.ScanStmt | ir.NotStmt | ir.WithStmt):
            self.block_body(depth + 1, s.block)


def _quoted(s: str) -> str:
    """`s` as a JSON string; the json package loads when a policy is printed (not with the compiler)."""
    import json

    return json.dumps(s)


def _args(p: _Printer, ops: tuple[ir.Operand, ...]) -> str:
    return ", ".join(p.op(o) for o in ops)


# Each renderer receives the statement class it is registered for (hence ``Any``).
if TYPE_CHECKING:
    _R = Callable[[_Printer, Any], str]
_RENDER: dict[type[ir.Stmt], _R] = {
    ir.ArrayAppendStmt: lambda p, s: f"append L{s.array} <- {p.op(s.value)}",
    ir.AssignIntStmt: lambda p, s: f"L{s.target} := int {s.value} (in place)",
    ir.AssignVarOnceStmt: lambda p, s: f"L{s.target} :=once {p.op(s.source)}",
    ir.AssignVarStmt: lambda p, s: f"L{s.target} := {p.op(s.source)}",
    ir.BlockStmt: lambda p, s: f"blocks ({len(s.blocks)})",
    ir.BreakStmt: lambda p, s: f"break {s.index}",
    ir.CallDynamicStmt: lambda p, s: (
        f"L{s.result} := dynamic [{_args(p, s.path)}]({', '.join(f'L{a}' for a in s.args)})"
    ),
    ir.CallStmt: lambda p, s: f"L{s.result} := {s.func}({_args(p, s.args)})",
    ir.DotStmt: lambda p, s: f"L{s.target} := {p.op(s.source)}[{p.op(s.key)}]",
    ir.EqualStmt: lambda p, s: f"check {p.op(s.a)} == {p.op(s.b)}",
    ir.NotEqualStmt: lambda p, s: f"check {p.op(s.a)} != {p.op(s.b)}",
    ir.IsArrayStmt: lambda p, s: f"check is_array({p.op(s.source)})",
    ir.IsObjectStmt: lambda p, s: f"check is_object({p.op(s.source)})",
    ir.IsSetStmt: lambda p, s: f"check is_set({p.op(s.source)})",
    ir.IsDefinedStmt: lambda p, s: f"check defined(L{s.source})",
    ir.IsUndefinedStmt: lambda p, s: f"check undefined(L{s.source})",
    ir.LenStmt: lambda p, s: f"L{s.target} := len({p.op(s.source)})",
    ir.MakeArrayStmt: lambda p, s: f"L{s.target} := [] (cap {s.capacity})",
    ir.MakeNullStmt: lambda p, s: f"L{s.target} := null",
    ir.MakeNumberIntStmt: lambda p, s: f"L{s.target} := int {s.value}",
    ir.MakeNumberRefStmt: lambda p, s: f"L{s.target} := number {p.op(ir.StringIndex(s.index))}",
    ir.MakeObjectStmt: lambda p, s: f"L{s.target} := {{}}",
    ir.MakeSetStmt: lambda p, s: f"L{s.target} := set()",
    ir.NopStmt: lambda p, s: "nop",
    ir.NotStmt: lambda p, s: "not:",
    ir.ObjectInsertStmt: lambda p, s: f"L{s.object}[{p.op(s.key)}] = {p.op(s.value)}",
    ir.ObjectInsertOnceStmt: lambda p, s: f"L{s.object}[{p.op(s.key)}] =once {p.op(s.value)}",
    ir.ObjectMergeStmt: lambda p, s: f"L{s.target} := merge(L{s.a}, L{s.b})",
    ir.ResetLocalStmt: lambda p, s: f"reset L{s.target}",
    ir.ResultSetAddStmt: lambda p, s: f"result add L{s.value}",
    ir.ReturnLocalStmt: lambda p, s: f"return L{s.source}",
    ir.ScanStmt: lambda p, s: f"scan L{s.source} (key L{s.key}, value L{s.value}):",
    ir.SetAddStmt: lambda p, s: f"add L{s.set} <- {p.op(s.value)}",
    ir.WithStmt: lambda p, s: (
        f"with L{s.local}{''.join('[' + p.op(ir.StringIndex(i)) + ']' for i in s.path)} = {p.op(s.value)}:"
    ),
}
assert set(_RENDER) == set(ir.STATEMENTS)


def format_policy(policy: ir.Policy) -> str:
    p = _Printer(policy)
    st = policy.static
    p.emit(0, "static strings:")
    for i, s in enumerate(st.strings):
        p.emit(1, f"{i}: {_quoted(s)}")
    if st.builtin_funcs:
        p.emit(0, "builtins:")
        for i, b in enumerate(st.builtin_funcs):
            p.emit(1, f"{i}: {b.name}/{b.arity}{'' if b.has_result else ' (void)'}")
    p.emit(0, "files:")
    for i, f in enumerate(st.files):
        p.emit(1, f"{i}: {f}")
    for plan in policy.plans:
        p.emit(0, f"plan {plan.name}:")
        p.blocks(1, plan.blocks)
    for fn in policy.funcs:
        params = ", ".join(f"L{x}" for x in fn.params)
        p.emit(0, f"func {fn.name}({params}) -> L{fn.return_}  path {'.'.join(fn.path)}:")
        p.blocks(1, fn.blocks)
    return "\n".join(p.lines) + "\n"
