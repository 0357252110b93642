"""Bad-input corpus: every case fails closed (deny, exit 2, reason starting "cupcake:")
without a Python traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cupcake_py.harness.opencode.examples import examples_dir, isolated_env, run_eval

GOOD = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp", "tool": "bash", "args": {"command": "ls"}}


def _with(**kw: object) -> bytes:
    return json.dumps({**GOOD, **kw}).encode()


def _without(key: str) -> bytes:
    return json.dumps({k: v for k, v in GOOD.items() if k != key}).encode()


CORPUS: dict[str, bytes] = {
    "empty": b"",
    "whitespace": b"  \n\t ",
    "malformed": b'{"hook_event_name": "PreToolUse",',
    "not-json": b"hello",
    "trailing-garbage": _with() + b" {}",
    "array": b"[1, 2, 3]",
    "string": b'"PreToolUse"',
    "null": b"null",
    "invalid-utf8": b'{"hook_event_name": "PreToolUse", "session_id": "\xff\xfe", "cwd": "/tmp", "tool": "bash", '
                    b'"args": {"command": "ls"}}',
    "lone-surrogate": b'{"hook_event_name": "PreToolUse", "session_id": "\\ud800", "cwd": "/tmp", "tool": "bash", '
                      b'"args": {"command": "ls"}}',
    "deeply-nested": b'{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp", "tool": "bash", '
                     b'"args": {"command": "ls", "x": ' + b"[" * 100000 + b"]" * 100000 + b"}}",
    "ten-megabytes": _with(args={"command": "echo " + "a" * (10 * 1024 * 1024)}),
    "unknown-event": _with(hook_event_name="SessionStart"),
    "event-wrong-type": _with(hook_event_name=7),
    "missing-event": _without("hook_event_name"),
    "missing-tool": _without("tool"),
    "missing-cwd": _without("cwd"),
    "missing-session": _without("session_id"),
    "empty-tool": _with(tool=""),
    "empty-cwd": _with(cwd=""),
    "args-array": _with(args=["ls"]),
    "args-string": _with(args="ls"),
    "tool-number": _with(tool=1),
    "bash-no-command": _with(args={}),
    "bash-command-number": _with(args={"command": 1}),
    "bash-timeout-string": _with(args={"command": "ls", "timeout": "10"}),
    "edit-no-filepath": _with(tool="edit", args={"oldString": "a", "newString": "b"}),
    "read-offset-bool": _with(tool="read", args={"filePath": "/x", "offset": True}),
    "todowrite-todos-object": _with(tool="todowrite", args={"todos": {}}),
    "post-without-result": _with(hook_event_name="PostToolUse"),
    "post-result-string": _with(hook_event_name="PostToolUse", result="ok"),
    "nan": b'{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp", "tool": "bash", '
           b'"args": {"command": "ls", "n": NaN}}',
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    import shutil

    root = tmp_path_factory.mktemp("bad-input")
    dest = root / "project"
    shutil.copytree(examples_dir() / "engine-project", dest, symlinks=True)
    (root / "config").mkdir()
    return dest, isolated_env(root / "cache", root / "config")


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_bad_input_fails_closed(name: str, project: tuple[Path, dict[str, str]]) -> None:
    cwd, env = project
    response, code, stderr = run_eval(CORPUS[name], cwd, [], env)
    assert code == 2, (response, stderr)
    assert isinstance(response, dict) and response["decision"] == "deny", response
    assert set(response) == {"decision", "reason"}
    assert response["reason"].startswith("cupcake: ")
    assert "Traceback" not in stderr


@pytest.mark.parametrize("args", [["--timeout", "abc"], ["--harness", "windsurf"], ["--bogus"], ["--timeout"],
                                  ["--wasm-max-memory", "12XB"], ["--policy-dir", "/nonexistent/dir"],
                                  ["--global-config", "/nonexistent/dir"]])
def test_bad_command_line_fails_closed(args: list[str], project: tuple[Path, dict[str, str]]) -> None:
    cwd, env = project
    response, code, stderr = run_eval(json.dumps({**GOOD, "cwd": str(cwd)}).encode(), cwd, args, env)
    assert code == 2 and response["decision"] == "deny" and response["reason"].startswith("cupcake: ")
    assert "Traceback" not in stderr


def test_no_project_fails_closed(tmp_path: Path, project: tuple[Path, dict[str, str]]) -> None:
    _, env = project
    response, code, stderr = run_eval(json.dumps({**GOOD, "cwd": str(tmp_path)}).encode(), tmp_path, [], env)
    assert code == 2 and "no .cupcake directory" in response["reason"]
    assert "Traceback" not in stderr
