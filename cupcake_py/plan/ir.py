"""OPA's planner IR as typed, immutable Python objects.

The shapes mirror OPA's documented IR (``Policy``/``Static``/``Plan``/``Func``/``Block``,
the statements, and the three operand kinds). ``load`` reads OPA's plan JSON, ``dump``
writes the same JSON shape back, and ``format_policy`` (in ``ir_print``) renders it for
humans. The planner emits these objects and the WASM backend consumes them.

Conventions:
- locals are plain ``int`` (0 = input, 1 = data), operands are ``Local``/``Bool``/``StringIndex``;
- every statement carries ``file``/``row``/``col`` (keyword-only, default 0), ``file``
  indexes ``Static.files``;
- optional JSON lists (absent or ``null``) load as empty tuples.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from cupcake_py.errors import CupcakeError


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


def _stmt(*keys: tuple[str, str, str]) -> Callable[[type], type]:
    """Declare a statement: (python field, JSON key, kind). Kinds: loc, op, int, str,
    block, blocks, ops, locs, ints."""

    def wrap(cls: type) -> type:
        cls = dataclass(frozen=True, slots=True)(cls)
        cls.KEYS = keys
        return cls

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

# ---------------------------------------------------------------------------------- JSON load


def _int(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise IRError(f"{where}: expected an integer, got {v!r}")
    return v


def _str(v: Any, where: str) -> str:
    if not isinstance(v, str):
        raise IRError(f"{where}: expected a string, got {v!r}")
    return v


def _list(v: Any, where: str) -> list[Any]:
    """An optional JSON list: absent/null → []."""
    if v is None:
        return []
    if not isinstance(v, list):
        raise IRError(f"{where}: expected a list, got {type(v).__name__}")
    return v


def _obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise IRError(f"{where}: expected an object, got {type(v).__name__}")
    return v


def _operand(v: Any, where: str) -> Operand:
    o = _obj(v, where)
    kind, value = o.get("type"), o.get("value")
    if kind == "local":
        return Local(_int(value, where))
    if kind == "bool":
        if not isinstance(value, bool):
            raise IRError(f"{where}: bool operand needs a boolean, got {value!r}")
        return Bool(value)
    if kind == "string_index":
        return StringIndex(_int(value, where))
    raise IRError(f"{where}: unknown operand type {kind!r}")


def _block(v: Any, where: str) -> Block:
    o = _obj(v, where)
    return Block(tuple(_stmt_load(s, f"{where}.stmts[{i}]") for i, s in enumerate(_list(o.get("stmts"), where))))


def _blocks(v: Any, where: str) -> tuple[Block, ...]:
    return tuple(_block(b, f"{where}[{i}]") for i, b in enumerate(_list(v, where)))


_LOADERS: dict[str, Callable[[Any, str], Any]] = {
    "loc": _int,
    "int": _int,
    "str": _str,
    "op": _operand,
    "block": _block,
    "blocks": _blocks,
    "ops": lambda v, w: tuple(_operand(x, f"{w}[{i}]") for i, x in enumerate(_list(v, w))),
    "locs": lambda v, w: tuple(_int(x, f"{w}[{i}]") for i, x in enumerate(_list(v, w))),
    "ints": lambda v, w: tuple(_int(x, f"{w}[{i}]") for i, x in enumerate(_list(v, w))),
}
_OPTIONAL_KINDS = frozenset({"blocks", "ops", "locs", "ints"})


def _stmt_load(v: Any, where: str) -> Stmt:
    o = _obj(v, where)
    name = o.get("type")
    cls = STATEMENT_BY_NAME.get(name) if isinstance(name, str) else None
    if cls is None:
        raise IRError(f"{where}: unknown statement type {name!r}")
    body = _obj(o.get("stmt"), f"{where}({name})")
    kwargs: dict[str, Any] = {}
    for attr, key, kind in cls.KEYS:
        if key not in body and kind not in _OPTIONAL_KINDS:
            raise IRError(f"{where}({name}): missing field {key!r}")
        kwargs[attr] = _LOADERS[kind](body.get(key), f"{where}({name}).{key}")
    for key in ("file", "row", "col"):
        kwargs[key] = _int(body.get(key, 0), f"{where}({name}).{key}")
    return cls(**kwargs)


def load(obj: Mapping[str, Any]) -> Policy:
    """Read OPA's plan JSON (already parsed) into a ``Policy``. Raises ``IRError``."""
    root = _obj(obj, "policy")
    static = _obj(root.get("static") or {}, "static")
    strings = tuple(
        _str(_obj(s, f"static.strings[{i}]").get("value"), f"static.strings[{i}]")
        for i, s in enumerate(_list(static.get("strings"), "static.strings"))
    )
    files = tuple(
        _str(_obj(s, f"static.files[{i}]").get("value"), f"static.files[{i}]")
        for i, s in enumerate(_list(static.get("files"), "static.files"))
    )
    builtins = []
    for i, b in enumerate(_list(static.get("builtin_funcs"), "static.builtin_funcs")):
        where = f"static.builtin_funcs[{i}]"
        bo = _obj(b, where)
        builtins.append(BuiltinFunc(_str(bo.get("name"), where + ".name"), _obj(bo.get("decl") or {}, where + ".decl")))
    plans = []
    for i, p in enumerate(_list(_obj(root.get("plans") or {}, "plans").get("plans"), "plans.plans")):
        where = f"plans[{i}]"
        po = _obj(p, where)
        plans.append(Plan(_str(po.get("name"), where + ".name"), _blocks(po.get("blocks"), where + ".blocks")))
    funcs = []
    for i, f in enumerate(_list(_obj(root.get("funcs") or {}, "funcs").get("funcs"), "funcs.funcs")):
        where = f"funcs[{i}]"
        fo = _obj(f, where)
        name = _str(fo.get("name"), where + ".name")
        where = f"func {name}"
        funcs.append(
            Func(
                name=name,
                params=tuple(_int(x, where + ".params") for x in _list(fo.get("params"), where + ".params")),
                return_=_int(fo.get("return"), where + ".return"),
                blocks=_blocks(fo.get("blocks"), where + ".blocks"),
                path=tuple(_str(x, where + ".path") for x in _list(fo.get("path"), where + ".path")),
            )
        )
    return Policy(Static(strings, tuple(builtins), files), tuple(plans), tuple(funcs))


# ---------------------------------------------------------------------------------- JSON dump


def _dump_operand(o: Operand) -> dict[str, Any]:
    kind = "local" if isinstance(o, Local) else "bool" if isinstance(o, Bool) else "string_index"
    return {"type": kind, "value": o.value}


def _dump_block(b: Block) -> dict[str, Any]:
    return {"stmts": [_dump_stmt(s) for s in b.stmts]}


# Empty optional lists are written the way OPA writes them: null for Go nil slices.
_DUMPERS: dict[str, Callable[[Any], Any]] = {
    "loc": lambda v: v,
    "int": lambda v: v,
    "str": lambda v: v,
    "op": _dump_operand,
    "block": _dump_block,
    "blocks": lambda v: [_dump_block(b) for b in v] if v else None,
    "ops": lambda v: [_dump_operand(o) for o in v] if v else None,
    "locs": lambda v: list(v) if v else None,
    "ints": lambda v: list(v),
}


def _dump_stmt(s: Stmt) -> dict[str, Any]:
    body: dict[str, Any] = {key: _DUMPERS[kind](getattr(s, attr)) for attr, key, kind in s.KEYS}
    body["file"], body["col"], body["row"] = s.file, s.col, s.row
    return {"type": type(s).__name__, "stmt": body}


def dump(policy: Policy) -> dict[str, Any]:
    """Write a ``Policy`` as OPA's plan JSON shape (a JSON-ready dict)."""
    static: dict[str, Any] = {"strings": [{"value": s} for s in policy.static.strings]}
    if policy.static.builtin_funcs:
        static["builtin_funcs"] = [{"name": b.name, "decl": dict(b.decl)} for b in policy.static.builtin_funcs]
    static["files"] = [{"value": f} for f in policy.static.files]
    return {
        "static": static,
        "plans": {"plans": [{"name": p.name, "blocks": [_dump_block(b) for b in p.blocks]} for p in policy.plans]},
        "funcs": {
            "funcs": [
                {
                    "name": f.name,
                    "params": list(f.params),
                    "return": f.return_,
                    "blocks": [_dump_block(b) for b in f.blocks],
                    "path": list(f.path),
                }
                for f in policy.funcs
            ]
            or None
        },
    }


def stmt_fields(s: Stmt) -> list[tuple[str, str, Any]]:
    """(JSON key, kind, value) of a statement's own fields (no location)."""
    return [(key, kind, getattr(s, attr)) for attr, key, kind in s.KEYS]


def _check_keys() -> None:
    for cls in STATEMENTS:
        own = [f.name for f in fields(cls) if f.name not in ("file", "row", "col")]
        if own != [attr for attr, _, _ in cls.KEYS]:
            raise AssertionError(f"{cls.__name__}: KEYS out of sync with fields")


_check_keys()


def format_policy(policy: Policy) -> str:
    """Human-readable rendering of a policy (see ``ir_print``)."""
    from cupcake_py.plan.ir_print import format_policy as fmt

    return fmt(policy)
