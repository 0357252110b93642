"""The allocator: alignment, reuse, heap reset, growth, out of memory, stash."""

from __future__ import annotations

import pytest

from tests.runtime.runtime_host import PAGE, Abort, Runtime


def test_malloc_alignment_and_distinct_blocks(rt: Runtime) -> None:
    addrs = [rt("opa_malloc", n) for n in (0, 1, 7, 8, 9, 100, 1025, 5000)]
    assert all(a % 8 == 0 for a in addrs)
    assert len(set(addrs)) == len(addrs)
    assert addrs[0] >= rt("opa_heap_ptr_get") - 20000  # above the heap start
    heap_base = rt.exports["__heap_base"].value(rt.store)
    assert min(addrs) >= heap_base


def test_free_reuses_blocks(rt: Runtime) -> None:
    a = rt("opa_malloc", 40)
    rt("opa_malloc", 8)  # keep `a` from being the last block
    rt("opa_free", a)
    assert rt("opa_malloc", 33) == a  # same size class
    big = rt("opa_malloc", 3000)
    rt("opa_malloc", 8)
    rt("opa_free", big)
    assert rt("opa_malloc", 2100) == big


def test_freeing_the_last_block_rewinds_the_bump_pointer(rt: Runtime) -> None:
    top = rt("opa_heap_ptr_get")
    a = rt("opa_malloc", 64)
    rt("opa_free", a)
    assert rt("opa_heap_ptr_get") == top


def test_realloc_keeps_contents(rt: Runtime) -> None:
    a = rt("opa_malloc", 16)
    rt.write(a, b"0123456789abcdef")
    rt("opa_malloc", 8)
    b = rt("opa_realloc", a, 5000)
    assert rt.read(b, 16) == b"0123456789abcdef"
    c = rt("opa_realloc", b, 9000)  # last block: grows in place
    assert c == b and rt.read(c, 16) == b"0123456789abcdef"


def test_heap_reset(rt: Runtime) -> None:
    base = rt("opa_heap_ptr_get")
    first = rt("opa_malloc", 100)
    rt.val('{"a": [1, 2, 3]}')
    assert rt("opa_heap_ptr_get") > base
    rt("opa_heap_ptr_set", base)
    assert rt("opa_heap_ptr_get") == base
    assert rt("opa_malloc", 100) == first


def test_memory_grows(rt: Runtime) -> None:
    pages = rt.memory.size(rt.store)
    a = rt("opa_malloc", 5 * PAGE * pages)
    assert rt.memory.size(rt.store) > 5 * pages
    rt.write(a + 5 * PAGE * pages - 1, b"x")


def test_out_of_memory_aborts() -> None:
    rt = Runtime(max_pages=None)
    pages = rt.memory.size(rt.store)
    capped = Runtime(max_pages=pages + 4)
    capped("opa_malloc", 2 * PAGE)  # fits
    with pytest.raises(Abort, match="out of memory"):
        capped("opa_malloc", 8 * PAGE)
    for huge in (2**31, 2**31 + 8, 0xFFFFFFF0):
        with pytest.raises(Abort, match="out of memory"):
            capped("opa_malloc", huge)
    with pytest.raises(Abort, match="out of memory"):
        capped.val("[" + ",".join(['"' + "x" * 1000 + '"'] * 400) + "]")


def test_invalid_free_aborts(rt: Runtime) -> None:
    a = rt("opa_malloc", 16)
    rt("opa_malloc", 16)
    with pytest.raises(Abort, match="invalid free"):
        rt("opa_free", a + 4)
    rt("opa_free", a)
    with pytest.raises(Abort, match="invalid free"):
        rt("opa_free", a)  # double free
    with pytest.raises(Abort, match="invalid free"):
        rt("opa_free", rt("opa_heap_ptr_get") + 64)


def test_addresses_below_the_heap_are_ignored(rt: Runtime) -> None:
    rt("opa_free", 0)
    rt("opa_free", 16)
    rt("opa_value_free", 0)


def test_stash_and_restore(rt: Runtime) -> None:
    a = rt("opa_malloc", 24)
    rt("opa_malloc", 8)
    rt("opa_free", a)
    rt("opa_heap_blocks_stash")
    b = rt("opa_malloc", 24)
    rt("opa_malloc", 8)  # keep `b` from being the last block
    assert b != a
    rt("opa_heap_blocks_restore")
    assert rt("opa_malloc", 24) == a
    rt("opa_free", b)
    rt("opa_heap_blocks_stash")
    rt("opa_heap_stash_clear")
    rt("opa_heap_blocks_restore")
    assert rt("opa_malloc", 24) != b
