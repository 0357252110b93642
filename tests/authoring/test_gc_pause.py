"""The cyclic GC pause around builds (cupcake_py/core/gc_pause.py): off inside, restored after
(also on an error), nested pauses keep it off, freezing only when asked."""

from __future__ import annotations

import gc

import pytest

from cupcake_py.core.gc_pause import gc_paused


def test_paused_inside_and_restored_after_even_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_nested_pause_stays_off_until_the_outer_one_ends() -> None:
    with gc_paused():
        with gc_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_freeze_only_when_asked() -> None:
    frozen = gc.get_freeze_count()
    with gc_paused():
        _ = [[] for _ in range(10)]
    assert gc.get_freeze_count() == frozen
    try:
        with gc_paused(freeze=True):
            _ = [[] for _ in range(10)]
        assert gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()
