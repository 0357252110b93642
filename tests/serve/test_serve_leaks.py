"""`cupcake serve` keeps no memory per request (issue 29), checked in process and without timing:
after a warm-up, more of the serve_memory bench's mixed requests (allow, deny, fractional numbers,
malformed lines, a 256 KiB command, a line over --max-input-bytes; both harnesses) leave the
number of Python objects and of allocated memory blocks where they were, and no request leaves
cyclic garbage (a ctypes type made per call did: 8 types per request, freed only by the cyclic GC).
The 100,000-request RSS run is `make bench-serve-memory`."""

from __future__ import annotations

import gc
import io
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benches"))

from serve_memory import MAX_LINE, make_projects, request  # noqa: E402

WARM_UP = 1200  # every kind of request, the memos (256 commands) full and churning, a 1 MiB line
MEASURED = 1200


@pytest.fixture
def serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    from cupcake_py.app import serve
    from cupcake_py.engine.options import parse_args
    from cupcake_py.engine.warm import WarmSource
    from cupcake_py.shell import memo

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    projects = make_projects(tmp_path)
    opts = parse_args(["--no-global", "--timeout", "60", "--max-input-bytes", str(MAX_LINE)])
    source = WarmSource(opts.wasm_max_memory)
    memo.enable()
    answered = [0]

    def run(first: int, count: int) -> None:
        lines = "\n".join(request(i, projects, False)[0] for i in range(first, first + count)) + "\n"
        out = io.BytesIO()
        serve.serve(opts, io.BytesIO(lines.encode()), out, source)
        answered[0] += out.getvalue().count(b"\n")

    run.answered = answered  # type: ignore[attr-defined]
    yield run
    memo.disable()


def _census() -> tuple[int, int, Counter[str]]:
    gc.collect()
    objects = gc.get_objects()
    return len(objects), sys.getallocatedblocks(), Counter(type(o).__name__ for o in objects)


def test_requests_leave_no_objects_behind(serving) -> None:  # type: ignore[no-untyped-def]
    serving(0, WARM_UP)
    objects, blocks, kinds = _census()
    serving(WARM_UP, MEASURED)
    objects2, blocks2, kinds2 = _census()
    assert serving.answered[0] == WARM_UP + MEASURED
    grown = (kinds2 - kinds).most_common(8)
    # some objects come and go (a memo entry replaced by one of another shape; the weak references
    # sqlite3 keeps to a connection's cursors, pruned in batches: +-150): never one per request
    assert objects2 - objects < MEASURED // 4, grown
    assert blocks2 - blocks < MEASURED * 2, (blocks2 - blocks, grown)


def test_requests_leave_no_native_memory_to_the_cyclic_gc(serving) -> None:  # type: ignore[no-untyped-def]
    """What a request drops that holds native memory is freed at once, not when the cyclic GC runs:
    no ctypes type is made per call, and a dropped policy instance frees its wasmtime store (its
    linear memory) when dropped (`PolicyInstance.close`). Small Python cycles (an exception's frames)
    are left to the GC as usual."""
    serving(0, 200)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        serving(200, 120)  # every kind of request but the rarest (each 100th and 1000th are in the other test)
        serving(1099, 2)  # a 256 KiB command, then a line over --max-input-bytes
        gc.collect()
        garbage = Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert garbage["PolicyInstance"] > 0  # instances were dropped (after every fail-closed answer) ...
    native = {k: n for k, n in garbage.items() if k in ("PyCArrayType", "PyCPointerType", "Store", "memoryview")}
    assert not native, native  # ... with their stores freed, and no ctypes type was left behind
