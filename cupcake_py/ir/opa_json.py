"""OPA's plan JSON <-> IR objects.

``load(obj)`` takes an already parsed plan JSON document (as OPA's ``opa build -t plan``
writes it) and returns an ``ir.Policy``; any malformed part raises ``IRError`` naming where
(e.g. ``plans[0].blocks[1].stmts[2](CallStmt).args``). Optional lists (absent or ``null``)
load as empty tuples. ``dump(policy)`` writes the same JSON shape back as a JSON-ready dict,
with empty optional lists as ``null`` the way OPA writes Go nil slices.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from cupcake_py.ir.nodes import (
    STATEMENT_BY_NAME,
    Block,
    Bool,
    BuiltinFunc,
    Func,
    IRError,
    Local,
    Operand,
    Plan,
    Policy,
    Static,
    Stmt,
    StringIndex,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any


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
