"""input.tool_paths (cupcake_py/enrich/tool_paths.py): every path argument, decoys never hide
the real target, access by tool and argument name, patches of both formats, never raises."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.enrich.tool_paths import patch_files, tool_paths


def paths(tool: str, args: Any, cwd: Path) -> set[tuple[str, str, str]]:
    return {(e["path"], e["arg"], e["access"]) for e in tool_paths(tool, args, str(cwd))}


def test_file_tools(tmp_path: Path) -> None:
    p = str(tmp_path / "a.py")
    assert paths("Write", {"filePath": "a.py", "content": "/etc/passwd"}, tmp_path) == {(p, "args.filePath", "write")}
    assert paths("Read", {"filePath": p}, tmp_path) == {(p, "args.filePath", "read")}
    assert paths("Edit", {"filePath": "./a.py", "oldString": "x", "newString": "/etc/y"}, tmp_path) == \
        {(p, "args.filePath", "write")}
    multi = paths("MultiEdit", {"filePath": "a.py", "edits": [{"filePath": "b/.env", "oldString": "", "newString": ""}]},
                  tmp_path)
    assert multi == {(p, "args.filePath", "write"), (str(tmp_path / "b/.env"), "args.edits[0].filePath", "write")}
    assert paths("Grep", {"pattern": "x/y", "path": "src"}, tmp_path) == {(str(tmp_path / "src"), "args.path", "read")}
    assert paths("Bash", {"command": "cat /etc/passwd"}, tmp_path) == set()


def test_mcp_tools_list_every_path_argument(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("x")
    got = paths("filesystem_write_file", {"filePath": "src/decoy.py", "path": "secrets/key.txt", "content": "a/b"},
                tmp_path)
    assert got == {(str(tmp_path / "src/decoy.py"), "args.filePath", "write"),
                   (str(tmp_path / "secrets/key.txt"), "args.path", "write")}
    moved = paths("filesystem_move_file", {"source": "a", "destination": "/tmp/b"}, tmp_path)
    assert moved == {(str(tmp_path / "a"), "args.source", "delete"), (os.path.realpath("/tmp/b"), "args.destination", "write")}
    nested = paths("srv_do", {"opts": {"target": [{"file": "~/x/y"}]}, "n": 3, "name": "notes", "word": "plain"},
                   tmp_path)
    assert (os.path.join(os.path.expanduser("~"), "x/y"), "args.opts.target[0].file", "unknown") in {
        (p, a, acc) for p, a, acc in nested}
    assert (str(tmp_path / "notes"), "args.name", "unknown") in nested, "an existing entry relative to cwd"
    assert not any(a == "args.word" for _, a, _ in nested), "a plain word naming nothing is not a path"
    read = paths("filesystem_read_file", {"path": "file://" + str(tmp_path / ".env")}, tmp_path)
    assert read == {(str(tmp_path / ".env"), "args.path", "read")}
    assert paths("web_search", {"url": "https://x.example/a/b", "query": "a/b"}, tmp_path) == set()


def test_symlinks_are_resolved(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "sl").symlink_to(tmp_path / "secrets")
    assert paths("Write", {"filePath": "sl/k"}, tmp_path) == {(str(tmp_path / "secrets/k"), "args.filePath", "write")}


def test_patches_both_formats_and_every_file(tmp_path: Path) -> None:
    envelope = ("*** Begin Patch\n*** Update File: a.py\n*** Move to: .env\n@@\n-x\n+y\n*** Delete File: old.py\n"
                "*** Add File: new.py\n+z\n*** End Patch")
    assert patch_files(envelope) == [("a.py", "delete"), (".env", "write"), ("old.py", "delete"), ("new.py", "write")]
    diff = "diff --git a/x b/y\n--- a/src/x.py\n+++ b/src/y.py\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/n.py\n"
    assert ("src/y.py", "write") in patch_files(diff) and ("n.py", "write") in patch_files(diff)
    for tool in ("ApplyPatch", "Patch"):
        got = paths(tool, {"patchText": envelope}, tmp_path)
        assert (str(tmp_path / ".env"), "args.patchText#1", "write") in got


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=40),
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                           max_leaves=20)


@settings(max_examples=200, deadline=None)
@given(tool=st.sampled_from(["Write", "Read", "MultiEdit", "ApplyPatch", "Patch", "srv_move_file", "x"]), args=json_values)
def test_never_raises_and_paths_are_absolute(tool: str, args: Any) -> None:
    for e in tool_paths(tool, args, "/nonexistent-cwd"):
        assert os.path.isabs(e["path"]) and e["access"] in ("read", "write", "delete", "unknown")
