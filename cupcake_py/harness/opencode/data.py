"""Where the OpenCode harness data lives (`harness/opencode/` in a checkout, packaged
as `cupcake_py/harness/opencode/_data/` in a wheel) and its cached JSON files."""

from __future__ import annotations

import functools
from pathlib import Path

from cupcake_py import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PKG = Path(__file__).resolve().parent


@functools.cache
def harness_dir() -> Path:
    """`harness/opencode/` of the checkout, else the copy shipped inside the wheel."""
    checkout = _PKG.parents[2] / "harness" / "opencode"
    return checkout if (checkout / "tool_map.json").is_file() else _PKG / "_data"


@functools.cache
def _load(name: str) -> Any:
    return jsonio.loads((harness_dir() / name).read_bytes())


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
