"""Faults never crash the process: each surfaces as a typed error and the host stays usable."""

from __future__ import annotations

import time

import pytest

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.host import errors as E

from .abi_mock import ABORT_MESSAGE, mock_module

MiB = 1024 * 1024


@pytest.fixture(scope="module", params=["cranelift", "winch"])
def module(request: pytest.FixtureRequest) -> PolicyModule:
    """Both compilers: the compliance runner uses Winch, `cupcake eval` Cranelift."""
    return PolicyModule(mock_module(), HostOptions(cache_dir=None, deadline=0.25, memory_limit=32 * MiB,
                                                   compiler=request.param))


def _still_usable(p: object) -> None:
    assert p.eval("echo", {"ok": True}) == [{"result": {"ok": True}}]  # type: ignore[attr-defined]


def test_runaway_loop_hits_deadline(module: PolicyModule) -> None:
    p = module.instantiate()
    t0 = time.monotonic()
    with pytest.raises(E.DeadlineExceeded, match="deadline of 0.25 s"):
        p.eval("loop", 1)
    elapsed = time.monotonic() - t0
    assert 0.2 <= elapsed < 2.0
    _still_usable(p)
    with pytest.raises(E.DeadlineExceeded):  # and again: the deadline is per call
        p.eval("loop", 1)
    _still_usable(p)


def test_oversized_allocation_hits_memory_cap(module: PolicyModule) -> None:
    p = module.instantiate()
    with pytest.raises(E.MemoryLimitExceeded):
        p.eval("alloc", 1)  # mallocs 96 MiB; the cap is 32 MiB
    _still_usable(p)
    big = HostOptions(cache_dir=None, memory_limit=128 * MiB)
    assert PolicyModule(mock_module(), big).instantiate().eval("alloc", 1) == []  # fits under a larger cap


def test_host_side_growth_respects_cap(module: PolicyModule) -> None:
    p = module.instantiate()
    with pytest.raises(E.MemoryLimitExceeded):
        p.eval("echo", {"s": "z" * (40 * MiB)})
    _still_usable(p)


def test_initial_memory_above_cap() -> None:
    m = PolicyModule(mock_module(memory_min=20), HostOptions(cache_dir=None, memory_limit=1 * MiB))
    with pytest.raises(E.MemoryLimitExceeded, match="at start"):
        m.instantiate()


def test_abort_surfaces_with_location(module: PolicyModule) -> None:
    p = module.instantiate()
    with pytest.raises(E.AbortError) as info:
        p.eval("abort", 1)
    err = info.value
    assert str(err) == ABORT_MESSAGE
    assert (err.file, err.row, err.col, err.detail) == ("policy.rego", 3, 5, "var assignment conflict")
    assert err.is_conflict
    _still_usable(p)


@pytest.mark.parametrize(("entrypoint", "message"), [("trap", "unreachable"), ("recurse", "stack overflow")])
def test_traps_are_typed(module: PolicyModule, entrypoint: str, message: str) -> None:
    p = module.instantiate()
    with pytest.raises(E.TrapError, match=message):
        p.eval(entrypoint, 1)
    _still_usable(p)


def test_unknown_compiler_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown compiler"):
        PolicyModule(mock_module(), HostOptions(cache_dir=None, compiler="llvm"))  # type: ignore[arg-type]


def test_all_host_errors_share_a_base() -> None:
    for cls in (E.AbortError, E.DeadlineExceeded, E.MemoryLimitExceeded, E.TrapError, E.ABIError,
                E.MissingBuiltinError, E.BuiltinEvalError, E.InputError, E.ModuleError):
        assert issubclass(cls, E.HostError)
