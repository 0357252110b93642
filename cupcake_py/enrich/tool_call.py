"""Harness-neutral enrichment of one normalised tool call.

In: the policy input a harness has normalised so far (`tool_name` in the shared vocabulary
such as Bash/Edit/Write/Read/ApplyPatch, `tool_input` = a private copy of the tool's
arguments in the harness's own field names, `cwd` as sent) and the harness's hints
(`PathHints`: which argument names hold the file path, which one is a working directory,
which one a patch text). Out: the same dict with the fields every builtin policy reads:
- file tools (first `path_args` key holding a non-empty string): `resolved_file_path`
  (absolute, symlinks resolved, relative to `cwd`), `original_file_path`, `is_symlink`.
- every tool: `tool_paths`, every path the call names (cupcake_py/enrich/tool_paths.py).
- ApplyPatch (`patch_arg`): `affected_files` (resolved paths of every added/updated/deleted/
  moved file) and `patch_operations` ([{action, path, resolved_path, is_symlink}]).
- Bash: `tool_input.command` whitespace-normalised outside quotes,
  `affected_parent_directories` (resolved path-like operands, omitted when none),
  `executed_script_path` / `executed_script_content` / `script_inspection_performed` for the
  first readable script file the command runs, `executed_scripts` for all of them (unreadable
  ones with content null), and `shell`: the
  structured analysis of the command as sent (cupcake_py.shell, docs/shell-analysis.md; never
  raises, opaque when unsure). The `workdir_arg` argument, when present, is the base for
  relative paths.
- MCP and unknown tools whose arguments carry a shell command (`command`, `cmd`, `script` …, with
  an `args` list appended quoted; `cwd`/`workdir` as its directory): `shell`, the same analysis
  (policies read it as they read a Bash command's).
Nothing here fails: unreadable scripts are left out (policies see no content), paths that do not
exist resolve lexically after their existing prefix.
"""

from __future__ import annotations

import os

from cupcake_py.core.record import FrozenRecord
from cupcake_py.core.userdirs import expand_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class PathHints(FrozenRecord):
    """Where a harness keeps the arguments enrichment reads."""

    __slots__ = ("path_args", "workdir_arg", "patch_arg")
    path_args: tuple[str, ...]  # argument names holding a file path (first present wins)
    workdir_arg: str | None  # Bash argument naming the directory the command runs in
    patch_arg: str | None  # ApplyPatch argument holding the patch text

    def __init__(self, path_args: tuple[str, ...], workdir_arg: str | None = None,
                 patch_arg: str | None = None) -> None:
        self._fill(path_args, workdir_arg, patch_arg)


def path_fields(raw: str, base: str) -> dict[str, Any]:
    joined = os.path.join(base, expand_home(raw))
    return {
        "resolved_file_path": os.path.realpath(joined),
        "original_file_path": raw,
        "is_symlink": os.path.islink(joined),
    }


def bash_fields(command: str, base: str, script_inspection: bool) -> dict[str, Any]:
    from cupcake_py.enrich import shell_words as shell

    out: dict[str, Any] = {}
    commands = shell.simple_commands(command, base)  # split once for both readings
    dirs = shell.directories_in(commands)
    if dirs:
        out["affected_parent_directories"] = dirs
    if script_inspection:
        scripts = []
        for run in shell.scripts_in(commands):
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


def patch_fields(patch_text: str, cwd: str) -> dict[str, Any]:
    from cupcake_py.enrich.patch import patch_operations

    ops = [{"action": op.action, "path": op.path, **path_fields(op.path, cwd)} for op in patch_operations(patch_text)]
    return {
        "patch_operations": [{"action": o["action"], "path": o["path"], "resolved_path": o["resolved_file_path"],
                              "is_symlink": o["is_symlink"]} for o in ops],
        "affected_files": list(dict.fromkeys(o["resolved_file_path"] for o in ops)),
    }


def enrich_tool_call(out: dict[str, Any], hints: PathHints, *, script_inspection: bool) -> dict[str, Any]:
    """Add the neutral fields to `out` (a normalised input with tool_name, tool_input, cwd) in
    place and return it. `out["tool_input"]` must be the caller's own copy (Bash normalises it)."""
    tool_name = out.get("tool_name")
    args = out.get("tool_input")
    if not isinstance(args, dict):
        return out
    cwd = os.path.realpath(expand_home(out["cwd"]))
    for key in hints.path_args:
        value = args.get(key)
        if isinstance(value, str) and value:
            out.update(path_fields(value, cwd))
            break
    from cupcake_py.enrich.tool_paths import tool_paths

    out["tool_paths"] = tool_paths(str(tool_name), args, cwd)
    patch = args.get(hints.patch_arg) if hints.patch_arg else None
    if tool_name in ("ApplyPatch", "Patch") and isinstance(patch, str):
        out.update(patch_fields(patch, cwd))
    if tool_name == "Bash" and isinstance(args.get("command"), str):
        from cupcake_py.enrich.shell_words import normalize_whitespace

        sent = args["command"]
        args["command"] = normalize_whitespace(sent)
        workdir = args.get(hints.workdir_arg) if hints.workdir_arg else None
        base = os.path.realpath(os.path.join(cwd, expand_home(workdir))) if isinstance(workdir, str) and workdir \
            else cwd
        out.update(bash_fields(args["command"], base, script_inspection))
        from cupcake_py.shell import analyze  # tree-sitter loads only for shell events

        out["shell"] = analyze(sent, base)
    elif tool_name not in KNOWN_TOOLS:
        command = shell_command_arg(args)
        if command is not None:  # an MCP or unknown tool that runs a shell command: analysed as one
            from cupcake_py.shell import analyze

            out["shell"] = analyze(command, _tool_workdir(args, cwd))
    return out


# Tools whose arguments never carry a shell command for the analysis (Bash is analysed above).
KNOWN_TOOLS = frozenset({"Bash", "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Grep", "Glob", "List", "LS",
                         "ApplyPatch", "Patch", "TodoWrite", "TodoRead", "WebFetch", "WebSearch", "Task", "Skill",
                         "BashOutput", "KillShell", "KillBash", "ExitPlanMode"})
# Argument names that hold a shell command in MCP and unknown tools (compared case-insensitively).
SHELL_ARGS = ("command", "cmd", "script", "shell_command", "shellcommand", "command_line", "commandline", "bash",
              "shell", "sh", "run")
ARGV_ARGS = ("args", "argv", "arguments")
WORKDIR_ARGS = ("cwd", "workdir", "working_directory", "workingdirectory", "dir", "directory")


def shell_command_arg(args: dict[str, Any]) -> str | None:
    """The shell command an unknown tool's arguments carry: the first SHELL_ARGS argument holding a
    string (`{"command": "rm", "args": ["-rf", "x"]}`: the program and its argument list, quoted);
    None when there is none."""
    lowered = {str(k).lower(): v for k, v in args.items()}
    for name in SHELL_ARGS:
        value = lowered.get(name)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return _quoted(value)
        if not isinstance(value, str) or not value.strip():
            continue
        extra = next((lowered[a] for a in ARGV_ARGS if isinstance(lowered.get(a), list)), None)
        if extra is not None and all(isinstance(v, str) for v in extra):
            return " ".join([value, _quoted(extra)]) if extra else value
        return value
    return None


def _quoted(words: list[str]) -> str:
    return " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)


def _tool_workdir(args: dict[str, Any], cwd: str) -> str:
    lowered = {str(k).lower(): v for k, v in args.items()}
    for name in WORKDIR_ARGS:
        value = lowered.get(name)
        if isinstance(value, str) and value:
            return os.path.realpath(os.path.join(cwd, expand_home(value)))
    return cwd
