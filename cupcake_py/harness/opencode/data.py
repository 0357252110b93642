"""Where the OpenCode harness data lives (`harness/opencode/` in a checkout, packaged
as `cupcake_py/harness/opencode/_data/` in a wheel) and its cached JSON files."""

from __future__ import annotations

from cupcake_py.harness.data import HarnessData

DATA = HarnessData("opencode")


def harness_dir() -> str:
    """`harness/opencode/` of the checkout, else the copy shipped inside the wheel (a str path)."""
    return DATA.dir()


# tool_map.json (`map`: the agent's tool id -> the tool_name policies see), the event and
# response schemas, and the mapping itself (cupcake_py/harness/data.py).
tool_map = DATA.tool_map
event_schema = DATA.event_schema
response_schema = DATA.response_schema
mapped_tool_name = DATA.mapped_tool_name

WORKDIR_ARG = "workdir"  # the bash tool's working directory argument (resolved like a path)


def path_arguments() -> tuple[str, ...]:
    """The arguments the engine resolves on disk, for any tool: tool_map.json `path_args` and
    the working directory."""
    return (*tool_map()["path_args"], WORKDIR_ARG)
