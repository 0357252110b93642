"""What policies see: the OpenCode event enriched with Cupcake-style fields.

Added to a copy of the (validated) event; the original `tool`, `args` and `result`
stay as sent:
- `tool_name` (mapped via tool_map.json), `tool_input` (copy of `args`; for Bash the
  `command` is whitespace-normalized outside quotes), `tool_response` (copy of `result`).
- file tools (first present `path_args` key holding a string): `resolved_file_path`
  (absolute, symlinks resolved, relative to `cwd`), `original_file_path`, `is_symlink`.
- `tool_paths`: every path the call names (cupcake_py.enrich.tool_paths; all entries, for
  every tool, MCP and unknown tools included).
- apply_patch: `affected_files` (resolved paths of every added/updated/deleted/moved file)
  and `patch_operations` ([{action, path, resolved_path}]).
- Bash: `affected_parent_directories` (resolved path-like operands, omitted when none),
  `executed_script_path` / `executed_script_content` / `script_inspection_performed`
  for the first script file the command runs, `executed_scripts` for all of them. A
  `workdir` argument is the base for relative paths. `shell`: the structured analysis of
  the command (cupcake_py.shell, docs/shell-analysis.md; never raises, opaque when unsure).
The harness never adds `signals` or `builtin_config`; the engine does.
"""

from __future__ import annotations

import os

from cupcake_py import jsonio
from cupcake_py.enrich.tool_paths import tool_paths
from cupcake_py.harness.opencode import data, shell
from cupcake_py.harness.opencode.patch import patch_operations
from cupcake_py.userdirs import expand_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _copy(v: Any) -> Any:
    return jsonio.loads(jsonio.dumps(v))


def event_name(event: dict[str, Any]) -> str:
    return str(event["hook_event_name"])


def _path_fields(raw: str, base: str) -> dict[str, Any]:
    joined = os.path.join(base, expand_home(raw))
    return {
        "resolved_file_path": os.path.realpath(joined),
        "original_file_path": raw,
        "is_symlink": os.path.islink(joined),
    }


def _bash_fields(command: str, base: str, script_inspection: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    dirs = shell.affected_directories(command, base)
    if dirs:
        out["affected_parent_directories"] = dirs
    if script_inspection:
        scripts = []
        for run in shell.executed_scripts(command, base):
            content = shell.read_script(run.path)
            # an unreadable script (missing, not a regular file, no permission) is listed with
            # content null, never dropped: a policy inspecting scripts can tell "not seen" from "clean"
            scripts.append({"path": run.path, "command_word": run.word, "content": content})
        readable = [sc for sc in scripts if sc["content"] is not None]
        if readable:
            out["executed_script_path"] = readable[0]["path"]
            out["executed_script_content"] = readable[0]["content"]
        if scripts:
            out["script_inspection_performed"] = bool(readable)
            out["executed_scripts"] = scripts
    return out


def preprocess(event: dict[str, Any], *, script_inspection: bool = True) -> dict[str, Any]:
    """The enriched copy of a validated event (idempotent on its own output)."""
    out = dict(event)
    tool = event["tool"]
    tool_name = data.mapped_tool_name(tool)
    args: dict[str, Any] = _copy(event["args"])
    cwd = os.path.realpath(expand_home(event["cwd"]))
    out["tool_name"] = tool_name
    out["tool_input"] = args
    if "result" in event:
        out["tool_response"] = _copy(event["result"])
    for key in data.tool_map()["path_args"]:
        value = args.get(key)
        if isinstance(value, str) and value:
            out.update(_path_fields(value, cwd))
            break
    out["tool_paths"] = tool_paths(tool_name, args, cwd)
    if tool_name in ("ApplyPatch", "Patch") and isinstance(args.get("patchText"), str):
        ops = []
        for op in patch_operations(args["patchText"]):
            ops.append({"action": op.action, "path": op.path, **_path_fields(op.path, cwd)})
        out["patch_operations"] = [{"action": o["action"], "path": o["path"], "resolved_path": o["resolved_file_path"],
                                    "is_symlink": o["is_symlink"]} for o in ops]
        out["affected_files"] = list(dict.fromkeys(o["resolved_file_path"] for o in ops))
    if tool_name == "Bash" and isinstance(args.get("command"), str):
        args["command"] = shell.normalize_whitespace(args["command"])
        workdir = args.get("workdir")
        base = os.path.realpath(os.path.join(cwd, expand_home(workdir))) if isinstance(workdir, str) and workdir \
            else cwd
        out.update(_bash_fields(args["command"], base, script_inspection))
        from cupcake_py.shell import analyze  # tree-sitter loads only for shell events

        out["shell"] = analyze(event["args"]["command"], base)
    return out
