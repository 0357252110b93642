"""Where the OpenCode harness data lives (`harness/opencode/` in a checkout, packaged
as `cupcake_py/harness/opencode/_data/` in a wheel) and its cached JSON files."""

from __future__ import annotations

from cupcake_py.harness.data import HarnessData

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DATA = HarnessData("opencode")


def harness_dir() -> str:
    """`harness/opencode/` of the checkout, else the copy shipped inside the wheel (a str path)."""
    return DATA.dir()


def tool_map() -> dict[str, Any]:
    """tool_map.json: `map` (OpenCode tool id -> tool_name), `path_args`, `tool_args`."""
    return DATA.load("tool_map.json")  # type: ignore[no-any-return]


def event_schema() -> dict[str, Any]:
    return DATA.load("schemas/event.schema.json")  # type: ignore[no-any-return]


def response_schema() -> dict[str, Any]:
    return DATA.load("schemas/response.schema.json")  # type: ignore[no-any-return]


def mapped_tool_name(tool: str) -> str:
    """The tool_name policies see: mapped built-ins, everything else unchanged."""
    return tool_map()["map"].get(tool, tool)  # type: ignore[no-any-return]
