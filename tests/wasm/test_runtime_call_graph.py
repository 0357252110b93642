"""runtime/call_graph.py (written by `make runtime`): the linker takes the runtime's call graph from
it instead of walking every runtime function body in every process. It must be what walking the
bodies gives for the committed runtime.wasm, and a runtime it was not made from is walked."""

from __future__ import annotations

import pytest

from cupcake_py.wasm import linker
from cupcake_py.wasm.module import Code, decode
from cupcake_py.wasm.opcodes import func_refs
from cupcake_py.wasm.runtime import build, call_graph, load_runtime_bytes


def _walked(raw: bytes) -> list[tuple[tuple[int, int, int], ...]]:
    return [tuple(func_refs(c.body, 0, len(c.body))) for c in decode(raw).codes if isinstance(c, Code)]


def test_the_committed_call_graph_is_fresh() -> None:
    raw = load_runtime_bytes()
    assert build.CALL_GRAPH.read_text() == linker.call_graph_source(raw), "run `make runtime`"
    assert list(call_graph.REFS) == _walked(raw)


def test_the_linker_uses_it_and_walks_a_runtime_it_was_not_made_from(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = load_runtime_bytes()
    walked = _walked(raw)
    shipped = linker.analyse_runtime.__wrapped__(raw)
    assert shipped.refs.done == list(call_graph.REFS)  # all known up front
    monkeypatch.setattr(call_graph, "RUNTIME", "0:00000000")
    stale = linker.analyse_runtime.__wrapped__(raw)
    assert stale.refs.done == [None] * len(walked)  # nothing taken from a call graph of another runtime
    assert [stale.refs[i] for i in range(len(walked))] == walked
