"""AST -> JSON-ready dicts (for `cupcake parse --format json` and debugging).

Every node becomes `{"type": <class name>, <fields>..., "location": {"file","row","col"}}`;
lists and tuples become lists; `else_`/`with_` are written as `else`/`with`.
"""

from __future__ import annotations

from typing import Any

from cupcake_py.core import slotted
from cupcake_py.core.errors import Location

_RENAME = {"else_": "else", "with_": "with"}


def to_json(node: Any) -> Any:
    if isinstance(node, Location):
        return {"file": node.file, "row": node.row, "col": node.col}
    if slotted.is_slotted(node):
        out: dict[str, Any] = {"type": type(node).__name__}
        for f in slotted.fields(node):
            v = getattr(node, f.name)
            if f.name == "location" and v.row == 0:
                continue
            out[_RENAME.get(f.name, f.name)] = to_json(v)
        return out
    if isinstance(node, list | tuple):
        return [to_json(x) for x in node]
    if isinstance(node, dict):
        return {str(k): to_json(v) for k, v in node.items()}
    return node
