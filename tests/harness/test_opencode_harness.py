from __future__ import annotations

import os
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.harness.opencode import data, shell
from cupcake_py.harness.opencode.patch import PatchOp, patch_operations
from cupcake_py.harness.opencode.preprocess import preprocess
from cupcake_py.harness.opencode.validate import EventError, schema_errors, validate_event

GOOD = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp", "tool": "bash",
        "args": {"command": "ls"}}

# ------------------------------------------------------------------ validation

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=4),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
                           max_leaves=6)
events = st.fixed_dictionaries({}, optional={
    "hook_event_name": st.sampled_from(["PreToolUse", "PostToolUse", "PermissionRequest", "Stop"]) | json_values,
    "session_id": st.text(max_size=3) | json_values, "cwd": st.sampled_from(["", "/x"]) | json_values,
    "tool": st.sampled_from(["bash", ""]) | json_values, "args": st.dictionaries(st.text(max_size=3), json_values),
    "result": json_values | st.fixed_dictionaries({"output": json_values, "success": json_values}),
    "agent": json_values, "extra": json_values})


@settings(max_examples=300)
@given(events)
def test_validator_agrees_with_jsonschema(event: dict) -> None:  # type: ignore[type-arg]
    ours = schema_errors(event, data.event_schema())
    theirs = list(jsonschema.Draft202012Validator(data.event_schema()).iter_errors(event))
    assert bool(ours) == bool(theirs), (ours, [e.message for e in theirs])


def test_extra_fields_are_kept_and_tool_args_checked() -> None:
    ev = {**GOOD, "call_id": "c", "future_field": {"x": 1}}
    assert validate_event(ev)["future_field"] == {"x": 1}
    assert validate_event({**GOOD, "tool": "mcp_x", "args": {}})  # unknown tools: any args
    assert validate_event({**GOOD, "args": {"command": "ls", "description": "extra ok"}})
    for tool, args in [("bash", {}), ("edit", {"filePath": "a", "oldString": "b"}), ("read", {"filePath": 1}),
                       ("webfetch", {"url": "u", "timeout": "1"}), ("apply_patch", {"patchText": None})]:
        with pytest.raises(EventError):
            validate_event({**GOOD, "tool": tool, "args": args})


def test_tool_map_covers_opencode_tools() -> None:
    m = data.tool_map()["map"]
    assert {k: m[k] for k in ("bash", "apply_patch", "skill", "todoread")} == \
        {"bash": "Bash", "apply_patch": "ApplyPatch", "skill": "Skill", "todoread": "TodoRead"}
    assert data.mapped_tool_name("github_create_issue") == "github_create_issue"
    assert set(data.tool_map()["tool_args"]) <= set(m)


# ------------------------------------------------------------------ shell analysis


@pytest.mark.parametrize(("raw", "norm"), [
    ("rm  -rf\tx", "rm -rf x"),
    ("echo 'a  b'", "echo 'a  b'"),
    ('echo "a  \\"  b"   c', 'echo "a  \\"  b" c'),
    ("  ls  ", "ls"),
    ("echo a\nrm -rf /", "echo a; rm -rf /"),
    ("a &&\n  b", "a && b"),
    ("a \\\n  b", "a b"),
    ("rm\u00a0-rf\u2003x", "rm -rf x"),
    ("echo a\\  b", "echo a\\  b"),
])
def test_normalize_whitespace(raw: str, norm: str) -> None:
    assert shell.normalize_whitespace(raw) == norm


@given(st.text(alphabet=" \t\n'\"\\ab;", max_size=30))
def test_normalize_is_idempotent(cmd: str) -> None:
    once = shell.normalize_whitespace(cmd)
    assert shell.normalize_whitespace(once) == once


def test_affected_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    (tmp_path / "existing").mkdir()
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    base = str(tmp_path)
    got = shell.affected_directories(
        "rm -rf ./build/*.o ~/x $HOME/y existing plain link/../z /etc/passwd 2>/dev/null -v -- 42", base)
    assert got == [f"{base}/build", "/home/u/x", "/home/u/y", f"{base}/existing", str(tmp_path / "z"),
                   "/etc/passwd"]
    assert shell.affected_directories("cat a/b | grep x > out/f", "/w") == ["/w/a/b", "/w/out/f"]
    # `cd` changes where later relative paths point.
    assert shell.affected_directories("cd /srv/secrets && rm -rf *", "/w") == ["/srv/secrets"]
    assert shell.affected_directories("cd ./sub; ./run.sh x/", "/w") == ["/w/sub", "/w/sub/x"]
    assert shell.affected_directories("curl https://x.y/z", "/w") == []
    # A bare name counts when it exists where the command runs (after the cd), not in the cwd.
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "prod.yml").write_text("x")
    assert shell.affected_directories("cd sub/../conf && truncate -s 0 prod.yml", base) == \
        [f"{base}/conf", f"{base}/conf/prod.yml"]
    assert shell.affected_directories("truncate -s 0 prod.yml", base) == []


def test_executed_scripts() -> None:
    runs = shell.executed_scripts("bash -x ./deploy.sh && python3 -m pip; python3 -c 'x'; node a.js; ./run; "
                                  "sudo -E sh s.sh; . ./env.sh; FOO=1 env ruby r.rb; sh -c 'rm x'; ls", "/w")
    assert [r.word for r in runs] == ["./deploy.sh", "a.js", "./run", "s.sh", "./env.sh", "r.rb"]
    assert runs[0].path == "/w/deploy.sh"


def test_read_script_skips_non_regular_files(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert shell.read_script(str(fifo)) is None
    assert shell.read_script(str(tmp_path / "missing")) is None
    (tmp_path / "s.sh").write_bytes(b"echo \xff")
    assert shell.read_script(str(tmp_path / "s.sh")) == "echo \ufffd"


# ------------------------------------------------------------------ apply_patch


def test_patch_operations() -> None:
    text = ("*** Begin Patch\n*** Add File: a/new.txt\n+x\n*** Update File: b.py\n*** Move to: c.py\n@@\n-a\n+b\n"
            "*** Delete File:   d.txt  \n*** End Patch\n")
    assert patch_operations(text) == [PatchOp("add", "a/new.txt"), PatchOp("update", "b.py"),
                                      PatchOp("move", "c.py"), PatchOp("delete", "d.txt")]
    assert patch_operations("garbage") == []


# ------------------------------------------------------------------ preprocessing


def test_preprocess_file_tool_symlink_and_dotdot(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("s")
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    (tmp_path / "sub").mkdir()
    ev = {**GOOD, "cwd": str(tmp_path), "tool": "write", "args": {"filePath": "link", "content": "x"}}
    out = preprocess(ev)
    assert out["tool_name"] == "Write" and out["tool_input"] == ev["args"] and out["tool_input"] is not ev["args"]
    assert (out["resolved_file_path"], out["original_file_path"], out["is_symlink"]) == \
        (str(tmp_path / "secret"), "link", True)
    out = preprocess({**ev, "args": {"filePath": str(tmp_path / "sub/../secret"), "content": "x"}})
    assert out["resolved_file_path"] == str(tmp_path / "secret") and out["is_symlink"] is False


def test_preprocess_bash(tmp_path: Path) -> None:
    (tmp_path / "go.sh").write_text("rm -rf /")
    ev = {**GOOD, "cwd": str(tmp_path), "args": {"command": "bash   go.sh", "workdir": "."}}
    out = preprocess(ev)
    assert out["args"]["command"] == "bash   go.sh" and out["tool_input"]["command"] == "bash go.sh"
    assert out["executed_script_path"] == str(tmp_path / "go.sh") and out["executed_script_content"] == "rm -rf /"
    assert out["script_inspection_performed"] is True
    assert out["affected_parent_directories"] == [str(tmp_path / "go.sh")]
    assert "executed_script_path" not in preprocess(ev, script_inspection=False)
    assert preprocess(out) == out  # idempotent


def test_unreadable_scripts_are_listed_not_dropped(tmp_path: Path) -> None:
    """No silent fail-open: a script that cannot be read is in executed_scripts with content null."""
    (tmp_path / "ok.sh").write_text("echo ok")
    os.mkfifo(tmp_path / "pipe.sh")
    ev = {**GOOD, "cwd": str(tmp_path), "args": {"command": "bash ./pipe.sh; ./missing.sh; bash ok.sh"}}
    out = preprocess(ev)
    assert [(s["path"], s["content"]) for s in out["executed_scripts"]] == [
        (str(tmp_path / "pipe.sh"), None), (str(tmp_path / "missing.sh"), None), (str(tmp_path / "ok.sh"), "echo ok")]
    assert out["executed_script_path"] == str(tmp_path / "ok.sh") and out["script_inspection_performed"] is True
    only_missing = preprocess({**ev, "args": {"command": "./missing.sh"}})
    assert only_missing["executed_scripts"][0]["content"] is None
    assert only_missing["script_inspection_performed"] is False and "executed_script_content" not in only_missing


def test_preprocess_apply_patch_and_post(tmp_path: Path) -> None:
    ev = {**GOOD, "hook_event_name": "PostToolUse", "cwd": str(tmp_path), "tool": "apply_patch",
          "args": {"patchText": "*** Add File: x/a.txt\n+1\n*** Update File: b\n*** Move to: c\n"},
          "result": {"output": "done", "success": True}}
    out = preprocess(ev)
    assert out["tool_name"] == "ApplyPatch" and out["tool_response"] == {"output": "done", "success": True}
    assert out["affected_files"] == [str(tmp_path / "x/a.txt"), str(tmp_path / "b"), str(tmp_path / "c")]
    assert [o["action"] for o in out["patch_operations"]] == ["add", "update", "move"]
