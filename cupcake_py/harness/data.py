"""Where a harness's data lives (`harness/<name>/` in a checkout: tool_map.json, schemas/,
examples/; packaged as `cupcake_py/harness/<name>/_data/` in a wheel) and its JSON files,
each read once per process; and where the example project every harness shares lives
(`harness/examples/` in a checkout, `cupcake_py/harness/_examples/` in a wheel)."""

from __future__ import annotations

import os

from cupcake_py.core import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HARNESS_PKG = os.path.dirname(os.path.realpath(__file__))


def shared_examples_dir() -> str:
    """The examples every harness shares: `project/` (one `.cupcake/policies/<harness>/` per agent) and
    `global-config/`."""
    checkout = os.path.join(os.path.dirname(os.path.dirname(_HARNESS_PKG)), "harness", "examples")
    return checkout if os.path.isdir(os.path.join(checkout, "project")) else os.path.join(_HARNESS_PKG, "_examples")


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

    def load_object(self, name: str) -> dict[str, Any]:
        """A data file whose document is a JSON object (the shipped files are)."""
        doc: dict[str, Any] = self.load(name)
        return doc

    def tool_map(self) -> dict[str, Any]:
        """tool_map.json: `map` (the agent's tool id -> the tool_name policies see), `path_args`,
        `tool_args` (and per harness: `aliases`)."""
        return self.load_object("tool_map.json")

    def event_schema(self) -> dict[str, Any]:
        return self.load_object("schemas/event.schema.json")

    def response_schema(self) -> dict[str, Any]:
        return self.load_object("schemas/response.schema.json")

    def mapped_tool_name(self, tool: str) -> str:
        """The tool_name policies see: the mapped name, anything unmapped unchanged."""
        name: str = self.tool_map()["map"].get(tool, tool)
        return name
