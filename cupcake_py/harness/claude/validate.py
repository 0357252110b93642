"""Validation of one Claude Code hook event against `schemas/event.schema.json` and, for tool
events, the argument types of `tool_map.json` (`tool_args`, keyed by Claude Code's own tool
names). Fails with EventError naming every problem (the caller answers with a deny)."""

from __future__ import annotations

from cupcake_py.harness.claude import data
from cupcake_py.harness.schema import args_errors, checked, path_errors, schema_errors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def validate_event(event: Any) -> dict[str, Any]:
    """The event itself when valid; EventError listing every problem otherwise."""
    errors = schema_errors(event, data.event_schema())
    if not errors and "tool_name" in event and isinstance(event.get("tool_input"), dict):
        errors = args_errors(data.tool_map()["tool_args"], event["tool_name"], event["tool_input"], "tool_input")
    if not errors:
        errors = path_errors(event, event.get("tool_input"), data.path_arguments(), "tool_input")
    return checked(event, errors, "Claude Code")
