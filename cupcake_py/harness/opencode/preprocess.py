"""What policies see: the OpenCode event normalised, then enriched by the harness-neutral
`cupcake_py.enrich.tool_call`.

Added to a copy of the (validated) event; the original `tool`, `args` and `result`
stay as sent:
- `tool_name` (mapped via tool_map.json), `tool_input` (copy of `args`; for Bash the
  `command` is whitespace-normalized outside quotes), `tool_response` (copy of `result`),
  `harness: "opencode"`.
- the neutral fields (resolved_file_path, tool_paths, patch_operations/affected_files, Bash
  analysis and the structured `shell` analysis): see cupcake_py/enrich/tool_call.py. OpenCode's hints: path args from tool_map.json
  (`filePath`, `file_path`, `path`), Bash `workdir`, apply_patch `patchText`.
The harness never adds `signals` or `builtin_config`; the engine does.
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.enrich.tool_call import PathHints, enrich_tool_call
from cupcake_py.harness.opencode import data

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def event_name(event: dict[str, Any]) -> str:
    return str(event["hook_event_name"])


_hints: list[PathHints] = []


def hints() -> PathHints:
    if not _hints:
        _hints.append(PathHints(tuple(data.tool_map()["path_args"]), workdir_arg=data.WORKDIR_ARG, patch_arg="patchText"))
    return _hints[0]


def preprocess(event: dict[str, Any], *, script_inspection: bool = True) -> dict[str, Any]:
    """The enriched copy of a validated event (idempotent on its own output)."""
    out = dict(event)
    out["tool_name"] = data.mapped_tool_name(event["tool"])
    out["tool_input"] = jsonio.copy(event["args"])
    if "result" in event:
        out["tool_response"] = jsonio.copy(event["result"])
    out["harness"] = "opencode"
    return enrich_tool_call(out, hints(), script_inspection=script_inspection)
