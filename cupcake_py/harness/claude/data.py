"""Where the Claude Code harness data lives (`harness/claude/` in a checkout, packaged as
`cupcake_py/harness/claude/_data/` in a wheel): tool_map.json, schemas/, examples/."""

from __future__ import annotations

from cupcake_py.harness.data import HarnessData

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DATA = HarnessData("claude")
MCP_PREFIX = "mcp__"


def tool_map() -> dict[str, Any]:
    """tool_map.json: `map` (Claude Code tool_name -> normalised), `path_args`, `aliases`, `tool_args`."""
    return DATA.load("tool_map.json")  # type: ignore[no-any-return]


def event_schema() -> dict[str, Any]:
    return DATA.load("schemas/event.schema.json")  # type: ignore[no-any-return]


def response_schema() -> dict[str, Any]:
    return DATA.load("schemas/response.schema.json")  # type: ignore[no-any-return]


def mapped_tool_name(tool: str) -> str:
    """The tool_name policies see (Agent -> Task; everything else unchanged)."""
    return tool_map()["map"].get(tool, tool)  # type: ignore[no-any-return]


def mcp_parts(tool: str) -> dict[str, str] | None:
    """`mcp__<server>__<tool>` -> {"server", "tool"}; None for other names."""
    if not tool.startswith(MCP_PREFIX):
        return None
    server, sep, name = tool[len(MCP_PREFIX):].partition("__")
    if not sep or not server or not name:
        return None
    return {"server": server, "tool": name}
