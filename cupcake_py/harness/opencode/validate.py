"""Validation of one OpenCode event against `schemas/event.schema.json` and the per-tool
argument types of `tool_map.json` (the validator itself: cupcake_py/harness/schema.py)."""

from __future__ import annotations

from cupcake_py.core.errors import EventError
from cupcake_py.harness.opencode import data
from cupcake_py.harness.schema import args_errors, checked, json_type, path_errors, schema_errors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["EventError", "json_type", "schema_errors", "validate_event"]


def validate_event(event: Any) -> dict[str, Any]:
    """The event itself when valid; EventError listing every problem otherwise."""
    errors = schema_errors(event, data.event_schema())
    if not errors:
        errors = args_errors(data.tool_map()["tool_args"], event["tool"], event["args"], "args")
        errors += path_errors(event, event["args"], data.path_arguments(), "args")
    return checked(event, errors, "OpenCode")
