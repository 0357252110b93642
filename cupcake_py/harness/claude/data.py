"""Where the Claude Code harness data lives (`harness/claude/` in a checkout, packaged as
`cupcake_py/harness/claude/_data/` in a wheel): tool_map.json, schemas/, examples/."""

from __future__ import annotations

from cupcake_py.harness.data import HarnessData

DATA = HarnessData("claude")
MCP_PREFIX = "mcp__"


# tool_map.json (`map`: the agent's tool id -> the tool_name policies see), the event and
# response schemas, and the mapping itself (cupcake_py/harness/data.py).
tool_map = DATA.tool_map
event_schema = DATA.event_schema
response_schema = DATA.response_schema
mapped_tool_name = DATA.mapped_tool_name


def mcp_parts(tool: str) -> dict[str, str] | None:
    """`mcp__<server>__<tool>` -> {"server", "tool"}; None for other names."""
    if not tool.startswith(MCP_PREFIX):
        return None
    server, sep, name = tool[len(MCP_PREFIX):].partition("__")
    if not sep or not server or not name:
        return None
    return {"server": server, "tool": name}


def path_arguments() -> tuple[str, ...]:
    """The arguments the engine resolves on disk, for any tool: tool_map.json `path_args`."""
    return tuple(tool_map()["path_args"])
