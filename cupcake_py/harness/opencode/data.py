"""Where the OpenCode harness data lives (`harness/opencode/` in a checkout, packaged
as `cupcake_py/harness/opencode/_data/` in a wheel) and its cached JSON files."""

from __future__ import annotations

import os

from cupcake_py import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PKG = os.path.dirname(os.path.realpath(__file__))


# memos (not functools.cache: functools, with collections, costs a routing miss ~3 ms to import)
_dir: list[str] = []
_loaded: dict[str, Any] = {}


def harness_dir() -> str:
    """`harness/opencode/` of the checkout, else the copy shipped inside the wheel (a str path)."""
    if not _dir:
        checkout = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(_PKG))), "harness", "opencode")
        in_checkout = os.path.isfile(os.path.join(checkout, "tool_map.json"))
        _dir.append(checkout if in_checkout else os.path.join(_PKG, "_data"))
    return _dir[0]


def _load(name: str) -> Any:
    if name not in _loaded:
        with open(os.path.join(harness_dir(), name), "rb") as f:
            _loaded[name] = jsonio.loads(f.read())
    return _loaded[name]


def tool_map() -> dict[str, Any]:
    """tool_map.json: `map` (OpenCode tool id -> tool_name), `path_args`, `tool_args`."""
    return _load("tool_map.json")  # type: ignore[no-any-return]


def event_schema() -> dict[str, Any]:
    return _load("schemas/event.schema.json")  # type: ignore[no-any-return]


def response_schema() -> dict[str, Any]:
    return _load("schemas/response.schema.json")  # type: ignore[no-any-return]


def mapped_tool_name(tool: str) -> str:
    """The tool_name policies see: mapped built-ins, everything else unchanged."""
    return tool_map()["map"].get(tool, tool)  # type: ignore[no-any-return]
