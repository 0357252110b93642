"""The enrichment behind issue 28's reading classes: the cached git history signal
(enrich/git_history.py), the files a directory search reads (enrich/search_reads.py) and the shell
commands MCP/unknown tools carry (enrich/tool_call.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.enrich import for_policies, git_history
from cupcake_py.enrich.search_reads import add_search_reads
from cupcake_py.enrich.tool_call import PathHints, enrich_tool_call, shell_command_arg
from cupcake_py.shell import analyze

GIT = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b",
       "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
CFG = {"sensitive_data_protection": {}}


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    from cupcake_py.core import cache_mac

    cache_mac.forget()


def _repo(root: Path) -> Path:
    root.mkdir()
    run = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True, env={**os.environ, **GIT})  # noqa: E731
    run("init", "-q", "-b", "main")
    (root / "app.py").write_text("x\n")
    (root / "id_rsa").write_text("KEY\n")
    run("add", "-A")
    run("commit", "-qm", "one")
    run("rm", "-q", "id_rsa")
    run("commit", "-qm", "removed")
    return root


def _bash_input(command: str, cwd: Path) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(cwd), "tool_input": {"command": command},
            "shell": analyze(command, str(cwd)), "builtin_config": CFG}


def test_history_lists_secrets_tracked_now_or_before(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r").resolve()
    policy_input = _bash_input("git log -p", repo)
    for_policies(policy_input)
    [entry] = policy_input["git_history"]["repositories"]
    assert entry["complete"] is True and entry["paths"] == [str(repo / "id_rsa")]  # removed, still in history


def test_history_is_cached_and_recomputed_when_refs_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path / "r").resolve()
    calls: list[str] = []
    real = git_history._list
    monkeypatch.setattr(git_history, "_list", lambda wt: (calls.append(wt), real(wt))[1])
    first = git_history.repository(str(repo / ".git"), str(repo))
    again = git_history.repository(str(repo / ".git"), str(repo))
    assert first == again and len(calls) == 1
    (repo / ".env").write_text("T=1\n")
    subprocess.run(["git", "add", ".env"], cwd=repo, check=True, env={**os.environ, **GIT})
    subprocess.run(["git", "commit", "-qm", "env"], cwd=repo, check=True, env={**os.environ, **GIT})
    moved = git_history.repository(str(repo / ".git"), str(repo))
    assert len(calls) == 2 and str(repo / ".env") in moved["paths"]


def test_a_forged_cache_entry_is_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path / "r").resolve()
    git_history.repository(str(repo / ".git"), str(repo))
    [entry] = list((tmp_path / "cache" / "cupcake-py" / "git-history").glob("*.json"))
    tag, _, _ = entry.read_bytes().partition(b"\n")
    entry.write_bytes(tag + b'\n{"work_tree": "x", "git_dir": "y", "paths": [], "complete": true, "reason": ""}')
    assert git_history.repository(str(repo / ".git"), str(repo))["paths"] == [str(repo / "id_rsa")]


def test_history_outside_a_repository_is_incomplete(tmp_path: Path) -> None:
    entry = git_history.repository(str(tmp_path / "nope" / ".git"), str(tmp_path))
    assert entry["complete"] is False and entry["reason"]


def test_no_history_no_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo(tmp_path / "r").resolve()
    monkeypatch.setattr(git_history, "_list", lambda wt: pytest.fail("git ran for a command printing no history"))
    policy_input = _bash_input("git log --oneline", repo)
    for_policies(policy_input)
    assert "git_history" not in policy_input


def _search(tool: str, args: dict[str, Any], cwd: Path, paths: list[dict[str, str]] | None = None) -> dict[str, Any]:
    policy_input = {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args, "cwd": str(cwd),
                    "tool_paths": paths or [], "builtin_config": CFG}
    add_search_reads(policy_input)
    return policy_input


def test_search_reads_lists_what_a_content_search_reads(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x\n")
    (tmp_path / ".env").write_text("K=1\n")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "k.txt").write_text("k\n")
    got = _search("Grep", {"pattern": "K"}, tmp_path)["search_reads"]
    assert got["kind"] == "content" and set(got["dirs"][str(tmp_path)]) == {str(tmp_path / ".env"),
                                                                           str(tmp_path / "secrets" / "k.txt")}
    assert "search_reads" not in _search("Grep", {"pattern": "K", "include": "*.py"}, tmp_path)
    assert "search_reads" not in _search("Grep", {"pattern": "K", "glob": "*.{py,ts}"}, tmp_path)
    src = [{"path": str(tmp_path / "src"), "original": "src", "arg": "args.path", "access": "read"}]
    assert "search_reads" not in _search("Grep", {"pattern": "K", "path": "src"}, tmp_path, src)
    assert _search("Glob", {"pattern": "**/*"}, tmp_path)["search_reads"]["kind"] == "names"


def test_search_reads_honours_gitignore(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(".env\n")
    (tmp_path / ".env").write_text("K=1\n")
    (tmp_path / "id_rsa").write_text("k\n")
    got = _search("Grep", {"pattern": "K"}, tmp_path)["search_reads"]["dirs"][str(tmp_path)]
    assert str(tmp_path / ".env") not in got and str(tmp_path / "id_rsa") in got


def test_search_reads_budget_marks_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cupcake_py.enrich import search_reads

    monkeypatch.setattr(search_reads, "MAX_ENTRIES", 5)
    for i in range(10):
        (tmp_path / f"f{i}.txt").write_text("x")
    got = _search("Grep", {"pattern": "K"}, tmp_path)["search_reads"]["dirs"][str(tmp_path)]
    assert got == [str(tmp_path / ".env")]  # not walked completely: may hold a secret


@pytest.mark.parametrize(("args", "command"), [
    ({"command": "cat .env"}, "cat .env"), ({"cmd": "ls"}, "ls"), ({"Script": "make"}, "make"),
    ({"command": "rm", "args": ["-rf", "a b"]}, "rm '-rf' 'a b'"), ({"command": ["git", "log"]}, "'git' 'log'"),
    ({"query": "select"}, None), ({"command": 3}, None),
])
def test_shell_command_arguments(args: dict[str, Any], command: str | None) -> None:
    assert shell_command_arg(args) == command


def test_mcp_tool_commands_are_analysed(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    out = enrich_tool_call({"tool_name": "myserver_run", "cwd": str(tmp_path),
                            "tool_input": {"command": "rm -rf x", "cwd": "w"}}, PathHints(()), script_inspection=False)
    assert out["shell"]["effects"]["deletes"] == [str(tmp_path.resolve() / "w" / "x")]
    plain = enrich_tool_call({"tool_name": "Task", "cwd": str(tmp_path), "tool_input": {"command": "rm -rf x"}},
                             PathHints(()), script_inspection=False)
    assert "shell" not in plain
