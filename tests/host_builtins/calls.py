"""Shared helpers: call a host builtin by name with a fresh per-evaluation context."""

from __future__ import annotations

from typing import Any

import pytest

from cupcake_py.host.builtins import BuiltinContext, BuiltinError, lookup


def call(name: str, *args: Any, ctx: BuiltinContext | None = None) -> Any:
    b = lookup(name)
    assert b is not None, f"builtin {name} is not registered"
    return b.fn(ctx or BuiltinContext(seed=7), *args)


def fails(name: str, *args: Any, match: str = "") -> str:
    """Assert the builtin raises BuiltinError (undefined); return its message."""
    with pytest.raises(BuiltinError) as info:
        call(name, *args)
    assert match in info.value.message, info.value.message
    return info.value.message
