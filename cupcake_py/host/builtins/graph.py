"""graph.reachable_paths (graph.reachable is native in the C runtime)."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import type_err, want_obj
from cupcake_py.host.builtins._values import freeze, sorted_values


def _members(v: Any) -> list[Any]:
    """Array elements in order, set elements sorted, null/other → none."""
    if isinstance(v, list | tuple):
        return [freeze(x) for x in v]
    if isinstance(v, frozenset):
        return sorted_values(v)
    return []


@builtin("graph.reachable_paths")
def reachable_paths(ctx: BuiltinContext, graph: Any, initial: Any) -> frozenset[Any]:
    g = {freeze(k): v for k, v in want_obj("graph.reachable_paths", 1, graph).items()}
    if not isinstance(initial, list | tuple | frozenset):
        raise type_err("graph.reachable_paths", 2, initial, "array", "set")
    paths: set[tuple[Any, ...]] = set()

    def visit(node: Any, path: tuple[Any, ...], reached: set[Any]) -> None:
        edges = _members(g[node])
        if not edges:
            paths.add(path)
            return
        seen = set(reached)  # ancestors and earlier siblings block a neighbour
        for nxt in edges:
            if nxt in seen or nxt not in g:
                paths.add(path)
                continue
            seen.add(nxt)
            visit(nxt, (*path, nxt), seen)

    for start in _members(initial):
        if start in g:
            visit(start, (start,), {start})
    return frozenset(paths)
