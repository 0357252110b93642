"""Issue 28 at the analysis level: git history printing, hooks skipped by effect, git options that
write, environment dumps, indirect file lists, and the ordinary work that must stay resolved."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from .conftest import opaque_kinds


def _git(out: dict[str, Any]) -> list[dict[str, Any]]:
    return out["git"]


@pytest.mark.parametrize(("command", "history"), [
    ("git log -p", True), ("git log --patch -3", True), ("git log -L 1,2:README.md", True), ("git log -U5", True),
    ("git whatchanged -p", True), ("git show HEAD", True), ("git show HEAD:.env", True), ("git show --oneline", True),
    ("git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD", True), ("git diff $(git hash-object -t tree /dev/null)", True),
    ("git diff HEAD~3", True), ("git diff-tree -p HEAD", True), ("git format-patch -1 --stdout", True),
    ("git grep KEY HEAD~2", True), ("git grep --cached KEY", True), ("git cat-file -p HEAD:.env", True),
    ("git cat-file --batch", True), ("git archive HEAD", True), ("git fast-export --all", True), ("git diff --stat HEAD~1", False),
    ("git bundle create /tmp/x --all", True), ("git blame README.md", True), ("git stash show -p", False),
    # names, counts and the work tree only
    ("git log --oneline -5", False), ("git log --stat", False), ("git show --stat HEAD", False),
    ("git show --name-only", False), ("git diff", False), ("git diff --stat", False), ("git diff -- src", False),
    ("git diff README.md", False), ("git grep KEY", False), ("git grep KEY -- src", False), ("git cat-file -t HEAD", False),
    ("git status", False), ("git stash show", False), ("git diff-tree --name-only HEAD", False),
])
def test_history_printing_is_flagged(an: Any, command: str, history: bool) -> None:
    assert [g["history"] for g in _git(an(command))][-1] is history


@pytest.mark.parametrize("command", [
    "git update-ref refs/heads/main $(git commit-tree HEAD^{tree} -p HEAD -m x)",
    "git reset --soft $(git commit-tree HEAD^{tree} -p HEAD -m x)",
    "git reset --soft 0123456789abcdef0123456789abcdef01234567",
    "git fast-import < stream", "git filter-branch -f --msg-filter cat", "git stash store abc123",
    "git-commit -n -m x", "/usr/lib/git-core/git-commit --no-verify -m x",
    "git config --worktree core.hooksPath /dev/null",
    "git clone -q . ../fresh && cd ../fresh && git commit --allow-empty -m x",
    "git -C ../other fetch \"$PWD\" main:main",
    "cd /tmp && git push origin main",
])
def test_commits_and_refs_without_hooks(an: Any, command: str) -> None:
    out = an(command)
    assert any(g["hooks_disabled"] for g in _git(out)), out["git"]


@pytest.mark.parametrize("command", [
    "git commit -m x", "git reset --soft HEAD~1", "git fetch origin main:main", "git fetch origin", "git push origin HEAD",
    "cd src && git commit -m x", "git stash && git stash pop",
])
def test_ordinary_git_keeps_its_hooks(an: Any, command: str) -> None:
    assert not any(g["hooks_disabled"] for g in _git(an(command))), an(command)["git"]


def test_config_worktree_write_disables_hooks_for_the_line(an: Any, project: Path) -> None:
    out = an("echo '[core] hooksPath = /dev/null' >> .git/config.worktree && git commit -m x")
    assert "git_hooks_changed" in out["facts"] and all(g["hooks_disabled"] for g in out["git"])


@pytest.mark.parametrize(("command", "kind", "rel"), [
    ("git diff --output=.env", "writes", ".env"), ("git log -p --output=x.txt", "writes", "x.txt"),
    ("git format-patch -o out HEAD~1", "writes", "out"), ("git bundle create b.bundle --all", "writes", "b.bundle"),
    ("git apply --directory=secrets p.diff", "writes", "secrets/src/a.py"),
    ("git update-index --cacheinfo 100644,abc123,secrets/key.txt", "writes", "secrets/key.txt"),
    ("git checkout-index -a --prefix=export/", "writes", "export"), ("git config -f .env -l", "reads", ".env"),
])
def test_git_options_that_write(an: Any, project: Path, command: str, kind: str, rel: str) -> None:
    assert str(project / rel) in an(command)["effects"][kind]


@pytest.mark.parametrize("command", [
    "awk 'BEGIN{print ENVIRON[\"HOME\"]}'", "jq -n env", "jq -n '$ENV.PATH'", "ps e", "ps auxe", "ps eww",
    "cat /proc/self/environ", "cat /proc/1/environ", "xargs -0 < /proc/self/environ", "declare -p", "set",
    "typeset -p", "export", "env", "printenv",
])
def test_environment_dumps(an: Any, command: str) -> None:
    assert "env_dump" in an(command)["facts"]


@pytest.mark.parametrize("command", ["ps aux", "ps -ef", "ps -C node", "jq .env package.json", "awk '{print $1}' f",
                                     "jq --arg env x '.a' f"])
def test_not_environment_dumps(an: Any, command: str) -> None:
    assert "env_dump" not in an(command)["facts"]


def test_proc_self_is_not_this_process(an: Any) -> None:
    assert an("cat /proc/self/environ")["effects"]["reads"] == ["/proc/self/environ"]


@pytest.mark.parametrize("command", [
    "tar cf out.tar -T list.txt", "tar --files-from=list.txt -cf out.tar", "echo .env | zip z.zip -@",
    "echo .env | cpio -o > x.cpio", "rsync -a --files-from=list.txt . /tmp/dst/",
    "find . -name .env | cpio -o > x.cpio", "cat list.txt | zip z.zip -@",
])
def test_indirect_file_lists_are_read(an: Any, project: Path, command: str) -> None:
    (project / "list.txt").write_text("README.md\n.env\n")
    assert str(project / ".env") in an(command)["effects"]["reads"], an(command)


@pytest.mark.parametrize("command", [
    "find . > l; tar cf x.tar -T l", "find . | cpio -o > x", "ls | zip z.zip -@", "tar cf x.tar -T \"$LIST\"",
])
def test_file_lists_known_only_at_run_time_are_opaque(an: Any, command: str) -> None:
    assert "reads" in opaque_kinds(an(command))


def test_find_listing_feeds_xargs(an: Any, project: Path) -> None:
    out = an("find src -name '*.py' | xargs grep -l x")
    assert out["opaque"] == [] and str(project / "src/a.py") in out["effects"]["reads"]
    assert "reads" in opaque_kinds(an("find src -name '*.py' -print0 | xargs -0 grep -l x"))


def test_venv_created_and_activated_in_the_line(an: Any, project: Path) -> None:
    out = an("python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt")
    assert out["opaque"] == [] and str(project / ".venv") in out["effects"]["writes"]
    for tampered in ("python3 -m venv .venv && echo 'rm -rf x' >> .venv/bin/activate && . .venv/bin/activate",
                     "python3 -m venv .venv && pip install evil && . .venv/bin/activate",
                     ". .venv2/bin/activate"):
        assert "command" in opaque_kinds(an(tampered)), tampered


def test_sqlite3_database_operand(an: Any, project: Path) -> None:
    out = an("sqlite3 app.db 'select 1'")
    assert out["opaque"] == [] and str(project / "app.db") in out["effects"]["reads"]


def test_history_flag_needs_a_repository(tmp_path: Path, an: Any) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    out = an("git log -p", cwd=tmp_path)
    assert out["git"][0]["history"] is True and out["git"][0]["work_tree"] == str(tmp_path.resolve())


@pytest.mark.parametrize(("command", "paths"), [
    ("git show HEAD:src/a.py", ["src/a.py"]), ("git blame README.md", ["README.md"]), ("git log -p -- src", ["src"]),
    ("git diff HEAD~1 -- src README.md", ["src", "README.md"]), ("git log -p", []), ("git show HEAD", []),
    ("git show HEAD HEAD:src/a.py", []), ("git log -p -- '*.py'", []), ("git cat-file --batch", []),
])
def test_history_paths(an: Any, project: Path, command: str, paths: list[str]) -> None:
    assert an(command)["git"][-1]["history_paths"] == [str(project / p) for p in paths]
