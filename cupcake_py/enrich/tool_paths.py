"""`input.tool_paths`: every file-system path a tool call names, for every event.

In:  the mapped tool name (`Write`, `ApplyPatch`, `filesystem_move_file`, …), the tool's
     argument object as sent, and the event's absolute cwd.
Out: `[{path, original, arg, access}]`: `path` absolute and realpath-resolved (`~`, `$HOME`
     and `file://` expanded; relative paths against cwd), `original` the argument text, `arg`
     the JSON path of the argument (`args.filePath`, `args.edits[0].filePath`,
     `args.patchText#2` for the 3rd file of a patch), `access` read|write|delete|unknown.
     Duplicates (same path, access and arg) are dropped; order is argument order.

Which arguments count:
- known file tools: their path arguments (`filePath`, `file_path`, `path`, `notebook_path`,
  MultiEdit `edits[*].filePath`), access by tool (Read/Grep/Glob/List read, the editing tools
  write);
- patch tools (`ApplyPatch`, legacy `Patch`): every file of the patch text (apply_patch
  envelope or unified diff): added/updated files write, deleted files and the source of a
  move delete, the move destination write;
- every other tool (MCP `server_tool`, custom tools): every string argument, recursively,
  that names a path: absolute, `./`, `../`, `~/`, `file://`, containing a `/`, or naming an
  existing entry relative to cwd. Long texts, multi-line strings and URLs are not paths. The
  access comes from the argument name and the tool name (`source` of a move is a delete,
  `destination` a write; `read_*` tools read; `write_*`/`edit_*`/`create_*` write;
  `delete_*`/`remove_*` delete), else `unknown`. Every candidate is listed, so a decoy
  argument can never hide the real target.
Never raises on argument values of any JSON type; nothing here fails closed by itself: what
cannot be resolved is listed as the joined, normalised path (policies match it as written).
"""

from __future__ import annotations

import os

from cupcake_py.core.userdirs import expand_home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Known tools: argument names holding the target path, and what the tool does with it.
FILE_TOOLS: dict[str, tuple[str, tuple[str, ...]]] = {
    "Read": ("read", ("filePath", "file_path", "path")),
    "Edit": ("write", ("filePath", "file_path", "path")),
    "Write": ("write", ("filePath", "file_path", "path")),
    "MultiEdit": ("write", ("filePath", "file_path", "path")),
    "NotebookEdit": ("write", ("notebook_path", "filePath", "file_path", "path")),
    "Grep": ("read", ("path",)),
    "Glob": ("read", ("path",)),
    "List": ("read", ("path",)),
    "LS": ("read", ("path",)),
}
PATCH_TOOLS = frozenset({"ApplyPatch", "Patch"})
PATCH_ARGS = ("patchText", "patch", "patch_text", "diff", "input")
# Tools whose string arguments are text for a model or a URL, never file-system targets.
TEXT_TOOLS = frozenset({"Bash", "TodoWrite", "TodoRead", "WebFetch", "Task", "Skill", "WebSearch"})
# Argument names that carry content, not places (for tools we do not know).
CONTENT_ARGS = frozenset({"content", "contents", "text", "body", "data", "newstring", "oldstring", "new_string",
                          "old_string", "message", "description", "prompt", "query", "pattern", "regex",
                          "replacement", "comment", "title", "code", "input"})
MAX_PATH_CHARS = 4096
MAX_CANDIDATES = 256
MAX_DEPTH = 16

# Access from a tool name's words (first match wins) and from argument names of move-like tools.
_TOOL_WORDS: tuple[tuple[str, str], ...] = (
    ("delete", "delete"), ("remove", "delete"), ("unlink", "delete"), ("rmdir", "delete"), ("trash", "delete"),
    ("move", "move"), ("rename", "move"), ("copy", "copy"), ("write", "write"), ("edit", "write"),
    ("create", "write"), ("save", "write"), ("put", "write"), ("upload", "write"), ("patch", "write"),
    ("append", "write"), ("mkdir", "write"), ("update", "write"), ("replace", "write"), ("insert", "write"),
    ("set", "write"), ("chmod", "write"), ("link", "write"),
    ("read", "read"), ("get", "read"), ("list", "read"), ("search", "read"), ("view", "read"), ("cat", "read"),
    ("open", "read"), ("find", "read"), ("stat", "read"), ("info", "read"), ("tree", "read"), ("download", "read"),
)
_SOURCE_ARGS = frozenset({"source", "src", "from", "old_path", "oldpath", "source_path", "sourcepath", "old"})
_DEST_ARGS = frozenset({"destination", "dest", "dst", "to", "target", "new_path", "newpath", "destination_path",
                        "destinationpath", "new", "target_path", "targetpath"})


def resolve(raw: str, cwd: str) -> str:
    """Absolute realpath of a path argument (`~`, `$HOME`, `file://` expanded)."""
    p = raw[len("file://"):] if raw.startswith("file://") else raw
    return os.path.realpath(os.path.join(cwd, expand_home(p)))


def _entry(raw: str, cwd: str, arg: str, access: str) -> dict[str, str]:
    return {"path": resolve(raw, cwd), "original": raw, "arg": arg, "access": access}


def _tool_access(tool_name: str) -> str:
    name = tool_name.lower()
    for word, access in _TOOL_WORDS:
        if word in name:
            return access
    return "unknown"


def _arg_access(tool_access: str, key: str) -> str:
    """What a move/copy tool does with one of its arguments."""
    k = key.lower()
    if tool_access in ("move", "copy"):
        if k in _SOURCE_ARGS:
            return "delete" if tool_access == "move" else "read"
        if k in _DEST_ARGS:
            return "write"
        return "unknown"
    return tool_access


_PATH_KEY_WORDS = ("path", "file", "dir", "folder", "source", "src", "dest", "target", "location")


def _path_key(key: str) -> bool:
    k = key.lower()
    return k in _SOURCE_ARGS or k in _DEST_ARGS or any(w in k for w in _PATH_KEY_WORDS)


def _plain(value: str) -> bool:
    return 0 < len(value) <= MAX_PATH_CHARS and "\n" not in value and "\x00" not in value and "://" not in value


def looks_like_path(value: str, cwd: str) -> bool:
    """Whether a string argument of an unknown tool names a file-system path."""
    if not value or len(value) > MAX_PATH_CHARS or "\n" in value or "\x00" in value:
        return False
    if value.startswith("file://"):
        return True
    if "://" in value:
        return False
    if value.startswith(("/", "./", "../", "~/", "$HOME/", "${HOME}/")) or value in ("~", ".", ".."):
        return True
    if "/" in value:
        return True
    return os.path.lexists(os.path.join(cwd, value))


def _walk(value: Any, arg: str, key: str, depth: int, out: list[tuple[str, str, str]]) -> None:
    """(json path, last key, string) of every string below `value`, bounded."""
    if len(out) >= MAX_CANDIDATES or depth > MAX_DEPTH:
        return
    if isinstance(value, str):
        out.append((arg, key, value))
    elif isinstance(value, dict):
        for k, v in value.items():
            _walk(v, f"{arg}.{k}", str(k), depth + 1, out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _walk(v, f"{arg}[{i}]", key, depth + 1, out)


def _unknown_tool(tool_name: str, args: dict[str, Any], cwd: str) -> list[dict[str, str]]:
    access = _tool_access(tool_name)
    found: list[tuple[str, str, str]] = []
    _walk(args, "args", "", 0, found)
    out = []
    for arg, key, value in found:
        if key.lower().replace("-", "_") in CONTENT_ARGS:
            continue
        if looks_like_path(value, cwd) or (_path_key(key) and _plain(value)):
            out.append(_entry(value, cwd, arg, _arg_access(access, key)))
    return out


def _file_tool(tool_name: str, args: dict[str, Any], cwd: str) -> list[dict[str, str]]:
    access, keys = FILE_TOOLS[tool_name]
    out = [_entry(args[k], cwd, f"args.{k}", access) for k in keys if isinstance(args.get(k), str) and args[k]]
    edits = args.get("edits")
    if isinstance(edits, list):
        for i, edit in enumerate(edits):
            if isinstance(edit, dict):
                out += [_entry(edit[k], cwd, f"args.edits[{i}].{k}", access) for k in keys
                        if isinstance(edit.get(k), str) and edit[k]]
    return out


def patch_files(text: str) -> list[tuple[str, str]]:
    """(path, access) of every file a patch touches: the apply_patch envelope (Add/Update/
    Delete File, Move to) and unified diffs (`--- a/x` / `+++ b/y`, `diff --git a/x b/y`)."""
    from cupcake_py.enrich.patch import patch_operations

    out: list[tuple[str, str]] = []
    ops = patch_operations(text)
    for i, op in enumerate(ops):
        if op.action == "move":
            out.append((op.path, "write"))
        elif op.action == "delete" or (i + 1 < len(ops) and ops[i + 1].action == "move"):
            out.append((op.path, "delete"))
        else:
            out.append((op.path, "write"))
    for line in text.splitlines():
        if line.startswith(("--- ", "+++ ", "rename from ", "rename to ", "copy to ")):
            word = line.split(" ", 1)[1].strip() if line[0] in "-+" else line.split(" ", 2)[2].strip()
            word = word.split("\t", 1)[0]
            if word != "/dev/null" and word:
                if line[0] in "-+" and word[:2] in ("a/", "b/"):
                    word = word[2:]
                out.append((word, "delete" if line.startswith("rename from ") else "write"))
    return out


def _patch_tool(args: dict[str, Any], cwd: str) -> list[dict[str, str]]:
    out = []
    for key in PATCH_ARGS:
        text = args.get(key)
        if isinstance(text, str):
            out += [_entry(p, cwd, f"args.{key}#{i}", a) for i, (p, a) in enumerate(patch_files(text))]
    return out


def tool_paths(tool_name: str, args: Any, cwd: str) -> list[dict[str, str]]:
    """The `input.tool_paths` list of one tool call (see the module docstring)."""
    if not isinstance(args, dict) or tool_name in TEXT_TOOLS:
        return []
    if tool_name in FILE_TOOLS:
        found = _file_tool(tool_name, args, cwd)
    elif tool_name in PATCH_TOOLS:
        found = _patch_tool(args, cwd)
    else:
        found = _unknown_tool(tool_name, args, cwd)
    seen: set[tuple[str, str, str]] = set()
    out = []
    for e in found:
        k = (e["path"], e["access"], e["arg"])
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out
