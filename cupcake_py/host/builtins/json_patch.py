"""json.patch: RFC 6902 over Rego values (objects, arrays and sets)."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_array
from cupcake_py.host.builtins._values import FrozenObject, freeze, thaw, type_name

_F = "json.patch"


def _err(msg: str) -> BuiltinError:
    return BuiltinError(f"{_F}: {msg}")


def _parse_path(p: Any) -> list[Any]:
    if isinstance(p, str):
        if p == "":
            return []
        body = p[1:] if p.startswith("/") else p
        return [seg.replace("~1", "/").replace("~0", "~") for seg in body.split("/")]
    if isinstance(p, list | tuple):
        return list(p)
    raise _err(f"path must be a string or an array but got {type_name(p)}")


def _index(seg: Any, length: int, *, for_add: bool) -> int:
    if for_add and seg == "-":
        return length
    if isinstance(seg, int) and not isinstance(seg, bool):
        i = seg
    elif isinstance(seg, str) and seg.isdigit() and (seg == "0" or not seg.startswith("0")):
        i = int(seg)
    else:
        raise _err(f"invalid array index {seg!r}")
    if i < 0 or i > length or (i == length and not for_add):
        raise _err(f"array index {i} out of range")
    return i


def _key(seg: Any) -> Any:
    return freeze(seg)


def _get(doc: Any, path: list[Any]) -> Any:
    for seg in path:
        if isinstance(doc, dict):
            k = _key(seg)
            if k not in doc:
                raise _err(f"path {seg!r} does not exist")
            doc = doc[k]
        elif isinstance(doc, list):
            doc = doc[_index(seg, len(doc), for_add=False)]
        elif isinstance(doc, frozenset):
            k = _key(seg)
            if k not in doc:
                raise _err(f"set element {seg!r} does not exist")
            doc = thaw(k)
        else:
            raise _err(f"cannot traverse into {type_name(doc)}")
    return doc


def _update(doc: Any, path: list[Any], op: str, value: Any = None) -> Any:
    """Return a new document with ``op`` ('add' | 'remove' | 'replace') applied at ``path``."""
    if not path:
        if op == "remove":
            raise _err("cannot remove the document root")
        return value
    seg, rest = path[0], path[1:]
    if isinstance(doc, dict):
        k = _key(seg)
        if rest:
            if k not in doc:
                raise _err(f"path {seg!r} does not exist")
            return {**doc, k: _update(doc[k], rest, op, value)}
        if op != "add" and k not in doc:
            raise _err(f"path {seg!r} does not exist")
        out = dict(doc)
        if op == "remove":
            del out[k]
        else:
            out[k] = value
        return out
    if isinstance(doc, list):
        if rest:
            i = _index(seg, len(doc), for_add=False)
            return doc[:i] + [_update(doc[i], rest, op, value)] + doc[i + 1 :]
        i = _index(seg, len(doc), for_add=op == "add")
        if op == "add":
            return doc[:i] + [value] + doc[i:]
        if op == "remove":
            return doc[:i] + doc[i + 1 :]
        return doc[:i] + [value] + doc[i + 1 :]
    if isinstance(doc, frozenset):
        k = _key(seg)
        if rest:
            if k not in doc:
                raise _err(f"set element {seg!r} does not exist")
            return (doc - {k}) | {freeze(_update(thaw(k), rest, op, value))}
        if op == "add":
            if freeze(value) != k:
                raise _err("set element key and value must match")
            return doc | {k}
        if k not in doc:
            raise _err(f"set element {seg!r} does not exist")
        return doc - {k} if op == "remove" else (doc - {k}) | {freeze(value)}
    raise _err(f"cannot traverse into {type_name(doc)}")


def _field(patch: dict[Any, Any], name: str) -> Any:
    if name not in patch:
        raise _err(f'patch is missing "{name}" attribute')
    return patch[name]


def _same(a: Any, b: Any) -> bool:
    return type_name(a) == type_name(b) and freeze(a) == freeze(b)


@builtin("json.patch")
def json_patch(ctx: BuiltinContext, obj: Any, patches: Any) -> Any:
    doc = thaw(obj) if isinstance(obj, FrozenObject) else obj
    for raw in want_array(_F, 2, patches):
        if not isinstance(raw, dict | FrozenObject):
            raise _err(f"patch must be an object but got {type_name(raw)}")
        p = dict(raw.items())
        op = _field(p, "op")
        path = _parse_path(_field(p, "path"))
        if op in ("add", "replace"):
            doc = _update(doc, path, op, thaw(_field(p, "value")))
        elif op == "remove":
            doc = _update(doc, path, "remove")
        elif op in ("move", "copy"):
            src = _parse_path(_field(p, "from"))
            val = _get(doc, src)
            if op == "move":
                if len(path) > len(src) and [freeze(x) for x in path[: len(src)]] == [freeze(x) for x in src]:
                    raise _err("cannot move a value into one of its children")
                doc = _update(doc, src, "remove")
            doc = _update(doc, path, "add", val)
        elif op == "test":
            if not _same(_get(doc, path), _field(p, "value")):
                raise _err("test operation failed")
        else:
            raise _err(f"unknown op {op!r}")
    return doc
