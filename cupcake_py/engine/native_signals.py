"""Signals computed in-process (no shell): `git.*`, `file.*`, … .

A provider is registered by name prefix as "module:function" and imported only when a
routed policy requires one of its signals. Contract:

    function(names: list[str], event: dict, root: pathlib.Path, deadline: float) -> dict[str, value]

`names` are the requested signal names with that prefix, `event` the preprocessed event,
`root` the project root, `deadline` a `time.monotonic()` instant the provider must not run
past. Values are JSON values stored at `input.signals.<name>`; a name missing from the
result is left out. Exceptions fail the evaluation closed.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Provider = Callable[[list[str], dict[str, Any], Path, float], dict[str, Any]]

# prefix -> "module:function"; add a family here.
PROVIDERS: dict[str, str] = {}


def _prefix(name: str) -> str | None:
    for prefix in PROVIDERS:
        if name.startswith(prefix):
            return prefix
    return None


def provides(name: str) -> bool:
    return _prefix(name) is not None


def gather(names: list[str], event: dict[str, Any], root: Path, deadline: float) -> dict[str, Any]:
    groups: dict[str, list[str]] = {}
    for n in names:
        p = _prefix(n)
        if p is not None:
            groups.setdefault(p, []).append(n)
    out: dict[str, Any] = {}
    for prefix, wanted in groups.items():
        module, _, fn = PROVIDERS[prefix].partition(":")
        provider: Provider = getattr(importlib.import_module(module), fn)
        got = provider(wanted, event, root, deadline)
        out.update({k: v for k, v in got.items() if k in wanted})
        if time.monotonic() > deadline:
            break
    return out
