"""Where a harness's data lives (`harness/<name>/` in a checkout: tool_map.json, schemas/,
examples/; packaged as `cupcake_py/harness/<name>/_data/` in a wheel) and its JSON files,
each read once per process."""

from __future__ import annotations

import os

from cupcake_py import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HARNESS_PKG = os.path.dirname(os.path.realpath(__file__))


class HarnessData:
    """The data directory of harness `name` (memoised; not functools.cache, whose import
    costs a routing miss ~3 ms)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._dir: str | None = None
        self._loaded: dict[str, Any] = {}

    def dir(self) -> str:
        if self._dir is None:
            checkout = os.path.join(os.path.dirname(os.path.dirname(_HARNESS_PKG)), "harness", self.name)
            in_checkout = os.path.isfile(os.path.join(checkout, "tool_map.json"))
            self._dir = checkout if in_checkout else os.path.join(_HARNESS_PKG, self.name, "_data")
        return self._dir

    def load(self, name: str) -> Any:
        if name not in self._loaded:
            with open(os.path.join(self.dir(), name), "rb") as f:
                self._loaded[name] = jsonio.loads(f.read())
        return self._loaded[name]

    def tool_map(self) -> dict[str, Any]:
        """tool_map.json: `map` (the agent's tool id -> the tool_name policies see), `path_args`,
        `tool_args` (and per harness: `aliases`)."""
        return self.load("tool_map.json")  # type: ignore[no-any-return]

    def event_schema(self) -> dict[str, Any]:
        return self.load("schemas/event.schema.json")  # type: ignore[no-any-return]

    def response_schema(self) -> dict[str, Any]:
        return self.load("schemas/response.schema.json")  # type: ignore[no-any-return]

    def mapped_tool_name(self, tool: str) -> str:
        """The tool_name policies see: the mapped name, anything unmapped unchanged."""
        return self.tool_map()["map"].get(tool, tool)  # type: ignore[no-any-return]
