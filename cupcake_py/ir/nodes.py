"""OPA's planner IR as typed, immutable Python objects (operands, blocks, plans, functions,
statements).

The shapes mirror OPA's documented IR (``Policy``/``Static``/``Plan``/``Func``/``Block``,
the statements, and the three operand kinds). The planner emits these objects and the WASM
backend consumes them; ``opa_json`` reads and writes OPA's plan JSON, ``printer`` renders
them for humans.

Conventions:
- locals are plain ``int`` (0 = input, 1 = data), operands are ``Local``/``Bool``/``StringIndex``;
- every statement carries ``file``/``row``/``col`` (keyword-only, default 0), ``file``
  indexes ``Static.files``;
- each statement class lists its JSON fields in ``KEYS``; a mismatch between ``KEYS`` and the
  dataclass fields fails at import (``_check_keys``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.slotted import dataclass, fields

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any, ClassVar, TypeVar, dataclass_transform
else:
    def dataclass_transform(**_: object) -> object:  # (it only informs mypy)
        return lambda f: f


class IRError(CupcakeError):
    """Malformed IR (e.g. an invalid plan JSON document)."""


# ---------------------------------------------------------------------------------- operands


@dataclass(frozen=True, slots=True)
class Local:
    value: int


@dataclass(frozen=True, slots=True)
class Bool:
    value: bool


@dataclass(frozen=True, slots=True)
class StringIndex:
    value: int


Operand = Local | Bool | StringIndex

# ---------------------------------------------------------------------------------- structure


@dataclass(frozen=True, slots=True)
class Block:
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class BuiltinFunc:
    """A builtin used by the policy. ``decl`` is OPA's type declaration JSON
    (``{"type": "function", "args": [...], "result": {...}}``); treat it as read-only."""

    name: str
    decl: Mapping[str, Any]

    @property
    def has_result(self) -> bool:
        return self.decl.get("result") is not None

    @property
    def arity(self) -> int:
        return len(self.decl.get("args") or ())


@dataclass(frozen=True, slots=True)
class Static:
    strings: tuple[str, ...] = ()
    builtin_funcs: tuple[BuiltinFunc, ...] = ()
    files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Plan:
    name: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class Func:
    name: str
    params: tuple[int, ...]
    return_: int
    blocks: tuple[Block, ...]
    path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Policy:
    static: Static
    plans: tuple[Plan, ...]
    funcs: tuple[Func, ...] = ()


# ---------------------------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True, kw_only=True)
class Stmt:
    """Base of all statements: the source location (``file`` indexes ``Static.files``)."""

    file: int = 0
    row: int = 0
    col: int = 0

    # JSON key for each dataclass field, in OPA's key order (file/col/row appended by dump).
    KEYS: ClassVar[tuple[tuple[str, str, str], ...]] = ()


if TYPE_CHECKING:
    _T = TypeVar("_T", bound=Stmt)


@dataclass_transform(frozen_default=True)  # (3.11 accepts the 3.12 keyword through **kwargs)
def _stmt(*keys: tuple[str, str, str]) -> Callable[[type[_T]], type[_T]]:
    """Declare a statement: a frozen, slotted dataclass with its JSON fields
    (python field, JSON key, kind). Kinds: loc, op, int, str, block, blocks, ops, locs, ints.
    ``dataclass_transform`` lets a type checker see the generated constructor."""

    def wrap(cls: type[_T]) -> type[_T]:
        made: type[_T] = dataclass(frozen=True, slots=True)(cls)
        made.KEYS = keys
        return made

    return wrap


@_stmt(("array", "array", "loc"), ("value", "value", "op"))
class ArrayAppendStmt(Stmt):
    array: int
    value: Operand


@_stmt(("value", "value", "int"), ("target", "target", "loc"))
class AssignIntStmt(Stmt):
    value: int
    target: int


@_stmt(("source", "source", "op"), ("target", "target", "loc"))
class AssignVarOnceStmt(Stmt):
    source: Operand
    target: int


@_stmt(("source", "source", "op"), ("target", "target", "loc"))
class AssignVarStmt(Stmt):
    source: Operand
    target: int


@_stmt(("blocks", "blocks", "blocks"))
class BlockStmt(Stmt):
    blocks: tuple[Block, ...]


@_stmt(("index", "index", "int"))
class BreakStmt(Stmt):
    index: int


@_stmt(("args", "args", "locs"), ("result", "result", "loc"), ("path", "path", "ops"))
class CallDynamicStmt(Stmt):
    args: tuple[int, ...]
    result: int
    path: tuple[Operand, ...]


@_stmt(("func", "func", "str"), ("args", "args", "ops"), ("result", "result", "loc"))
class CallStmt(Stmt):
    func: str
    args: tuple[Operand, ...]
    result: int


@_stmt(("source", "source", "op"), ("key", "key", "op"), ("target", "target", "loc"))
class DotStmt(Stmt):
    source: Operand
    key: Operand
    target: int


@_stmt(("a", "a", "op"), ("b", "b", "op"))
class EqualStmt(Stmt):
    a: Operand
    b: Operand


@_stmt(("a", "a", "op"), ("b", "b", "op"))
class NotEqualStmt(Stmt):
    a: Operand
    b: Operand


@_stmt(("source", "source", "op"))
class IsArrayStmt(Stmt):
    source: Operand


@_stmt(("source", "source", "op"))
class IsObjectStmt(Stmt):
    source: Operand


@_stmt(("source", "source", "op"))
class IsSetStmt(Stmt):
    source: Operand


@_stmt(("source", "source", "loc"))
class IsDefinedStmt(Stmt):
    source: int


@_stmt(("source", "source", "loc"))
class IsUndefinedStmt(Stmt):
    source: int


@_stmt(("source", "source", "op"), ("target", "target", "loc"))
class LenStmt(Stmt):
    source: Operand
    target: int


@_stmt(("capacity", "capacity", "int"), ("target", "target", "loc"))
class MakeArrayStmt(Stmt):
    capacity: int
    target: int


@_stmt(("target", "target", "loc"))
class MakeNullStmt(Stmt):
    target: int


@_stmt(("value", "value", "int"), ("target", "target", "loc"))
class MakeNumberIntStmt(Stmt):
    value: int
    target: int


@_stmt(("index", "Index", "int"), ("target", "target", "loc"))
class MakeNumberRefStmt(Stmt):
    index: int
    target: int


@_stmt(("target", "target", "loc"))
class MakeObjectStmt(Stmt):
    target: int


@_stmt(("target", "target", "loc"))
class MakeSetStmt(Stmt):
    target: int


@_stmt()
class NopStmt(Stmt):
    pass


@_stmt(("block", "block", "block"))
class NotStmt(Stmt):
    block: Block


@_stmt(("key", "key", "op"), ("value", "value", "op"), ("object", "object", "loc"))
class ObjectInsertStmt(Stmt):
    key: Operand
    value: Operand
    object: int


@_stmt(("key", "key", "op"), ("value", "value", "op"), ("object", "object", "loc"))
class ObjectInsertOnceStmt(Stmt):
    key: Operand
    value: Operand
    object: int


@_stmt(("a", "a", "loc"), ("b", "b", "loc"), ("target", "target", "loc"))
class ObjectMergeStmt(Stmt):
    a: int
    b: int
    target: int


@_stmt(("target", "target", "loc"))
class ResetLocalStmt(Stmt):
    target: int


@_stmt(("value", "value", "loc"))
class ResultSetAddStmt(Stmt):
    value: int


@_stmt(("source", "source", "loc"))
class ReturnLocalStmt(Stmt):
    source: int


@_stmt(("source", "source", "loc"), ("key", "key", "loc"), ("value", "value", "loc"), ("block", "block", "block"))
class ScanStmt(Stmt):
    source: int
    key: int
    value: int
    block: Block


@_stmt(("value", "value", "op"), ("set", "set", "loc"))
class SetAddStmt(Stmt):
    value: Operand
    set: int


@_stmt(("local", "local", "loc"), ("path", "path", "ints"), ("value", "value", "op"), ("block", "block", "block"))
class WithStmt(Stmt):
    local: int
    path: tuple[int, ...]
    value: Operand
    block: Block


STATEMENTS: tuple[type[Stmt], ...] = (
    ArrayAppendStmt, AssignIntStmt, AssignVarOnceStmt, AssignVarStmt, BlockStmt, BreakStmt,
    CallDynamicStmt, CallStmt, DotStmt, EqualStmt, NotEqualStmt, IsArrayStmt, IsObjectStmt,
    IsSetStmt, IsDefinedStmt, IsUndefinedStmt, LenStmt, MakeArrayStmt, MakeNullStmt,
    MakeNumberIntStmt, MakeNumberRefStmt, MakeObjectStmt, MakeSetStmt, NopStmt, NotStmt,
    ObjectInsertStmt, ObjectInsertOnceStmt, ObjectMergeStmt, ResetLocalStmt, ResultSetAddStmt,
    ReturnLocalStmt, ScanStmt, SetAddStmt, WithStmt,
)  # fmt: skip
STATEMENT_BY_NAME: dict[str, type[Stmt]] = {cls.__name__: cls for cls in STATEMENTS}


def walk_blocks(blocks: Iterable[Block]) -> Iterator[Block]:
    """Every block of ``blocks`` and, depth first, every block nested in their statements."""
    for b in blocks:
        yield b
        for s in b.stmts:
            for field, _key, kind in type(s).KEYS:
                if kind == "block":
                    yield from walk_blocks((getattr(s, field),))
                elif kind == "blocks":
                    yield from walk_blocks(getattr(s, field))


def policy_bodies(policy: Policy) -> list[tuple[Block, ...]]:
    """The top-level blocks of every plan and every function of ``policy``."""
    return [p.blocks for p in policy.plans] + [f.blocks for f in policy.funcs]


def _check_keys() -> None:
    for cls in STATEMENTS:
        own = [f.name for f in fields(cls) if f.name not in ("file", "row", "col")]
        if own != [attr for attr, _, _ in cls.KEYS]:
            raise AssertionError(f"{cls.__name__}: KEYS out of sync with fields")


_check_keys()
