"""Planner state: the policy-wide tables (strings, files, builtins, funcs, generations) and the
per-function emission context (statement lists, locals, variable bindings)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

from cupcake_py import ir
from cupcake_py.core.slotted import dataclass, field
from cupcake_py.rego import ast as A
from cupcake_py.rego.compile import builtins as B
from cupcake_py.rego.compile.nodes import Compiled, Group, Node
from cupcake_py.rego.errors import COMPILE, RegoError, RegoErrors

K = Callable[[], None]
KV = Callable[[ir.Operand], None]
KOps = Callable[[list[ir.Operand]], None]  # continuation taking the operands of several terms


@dataclass(frozen=True)
class Gen:
    """A planning generation: rules disabled by `with data...` and mocked functions.
    `mocks` maps a function/builtin name to ("func", name) or ("slot", index): a value passed
    to every function of the generation as an extra parameter."""

    disabled: frozenset[tuple[str, ...]] = frozenset()
    mocks: tuple[tuple[str, tuple[str, object]], ...] = ()
    slots: int = 0

    def mock(self, name: str) -> tuple[str, object] | None:
        for n, r in self.mocks:
            if n == name:
                return r
        return None


@dataclass
class FuncCtx:
    """Emission state of one Func or Plan being built."""

    stmts: list[ir.Stmt] = field(default_factory=list)
    vars: dict[str, int] = field(default_factory=dict)
    nlocal: int = 2
    slots: tuple[int, ...] = ()  # locals holding the generation's mocked values
    file: int = 0


class PlanError(RegoErrors):
    pass


def plan_error(message: str, loc: A.Location) -> PlanError:
    """A user-facing planning error at `loc` (rego_compile_error)."""
    return PlanError([RegoError(COMPILE, message, loc if loc.row else None)])


class State:
    def __init__(self, compiled: Compiled) -> None:
        self.compiled = compiled
        self.tree: Node = compiled.tree
        self.strings: dict[str, int] = {}
        self.files: dict[str, int] = {}
        self.builtins: set[str] = set()
        self.funcs: dict[str, ir.Func | None] = {}
        self.gens: list[Gen] = [Gen()]
        self.gen = 0
        self.fx = FuncCtx()
        self.loc = A.NO_LOCATION
        self.shared_counts: Counter[tuple[object, ...]] | None = None  # shared_calls.count_calls, on first use
        self.shared_names: dict[tuple[object, ...], str] = {}  # shared call key -> its function

    # ------------------------------------------------------------------ tables
    def string(self, s: str) -> int:
        i = self.strings.get(s)
        if i is None:
            i = self.strings[s] = len(self.strings)
        return i

    def file(self, name: str) -> int:
        i = self.files.get(name)
        if i is None:
            i = self.files[name] = len(self.files)
        return i

    def gen_id(self, g: Gen) -> int:
        if g in self.gens:
            return self.gens.index(g)
        self.gens.append(g)
        return len(self.gens) - 1

    @property
    def cur_gen(self) -> Gen:
        return self.gens[self.gen]

    def use_builtin(self, name: str) -> B.Builtin:
        b = B.lookup(name)
        if b is None:
            raise plan_error(f"undefined function {name}", self.loc)
        self.builtins.add(name)
        return b

    # ------------------------------------------------------------------ emission
    def new(self) -> int:
        n = self.fx.nlocal
        self.fx.nlocal += 1
        return n

    def emit(self, s: ir.Stmt) -> None:
        loc = self.loc
        if loc.row:  # the statement was just built here: set its location in place
            set_ = object.__setattr__
            set_(s, "file", self.fx.file)
            set_(s, "row", loc.row)
            set_(s, "col", loc.col)
        self.fx.stmts.append(s)

    def emit_all(self, *stmts: ir.Stmt) -> None:
        for s in stmts:
            self.emit(s)

    def emit_then(self, s: ir.Stmt, k: K) -> None:
        """Emit `s`, then continue with `k` (the usual step: one check, then the rest)."""
        self.emit(s)
        k()

    def block(self, fn: K) -> ir.Block:
        saved = self.fx.stmts
        self.fx.stmts = []
        try:
            fn()
            return ir.Block(tuple(self.fx.stmts))
        finally:
            self.fx.stmts = saved

    def scoped(self, fn: K) -> ir.Block:
        """A block whose variable bindings do not leak out."""
        saved = dict(self.fx.vars)
        try:
            return self.block(fn)
        finally:
            self.fx.vars = saved

    def at(self, loc: A.Location) -> None:
        if loc.row:
            self.loc = loc
            self.fx.file = self.file(loc.file or "<query>")

    def local_of(self, op: ir.Operand) -> int:
        if isinstance(op, ir.Local):
            return op.value
        t = self.new()
        self.emit(ir.AssignVarStmt(source=op, target=t))
        return t

    def group_at(self, node: Node) -> Group | None:
        g = node.group
        if g is None:
            return None
        n = len(g.path)
        for d in self.cur_gen.disabled:
            if d[:n] == g.path or g.path[:len(d)] == d:
                return None
        return g

    def has_virtual(self, node: Node) -> bool:
        if node.package or self.group_at(node) is not None:
            return True
        return any(self.has_virtual(c) for c in node.children.values())

    def value_children(self, node: Node) -> Iterator[tuple[str, Node, Group | None]]:
        """(key, child, its enabled group or None) for each child of `node` whose virtual documents are part
        of `node`'s value (functions are not values)."""
        for key, child in node.children.items():
            if self.has_virtual(child):
                g = self.group_at(child)
                if g is None or g.kind != "function":
                    yield key, child, g
