"""git: global options, config overrides, aliases, hook bypass, work-tree effects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import opaque_kinds


def git_entry(out: dict[str, Any]) -> dict[str, Any]:
    assert out["git"], out["commands"]
    return out["git"][-1]


@pytest.mark.parametrize("command", [
    "git commit -n -m x", "git commit --no-verify -m x", "git commit '-n' -m x", "git commit -anm msg",
    "git commit -a -n", "git commit --no-veri -m x", "git push --no-verify", "git merge --no-verify main",
    "git am --no-verify x.mbox", "git rebase --no-verify main", "git -c alias.ci='commit --no-verify' ci",
    "git -c alias.ci='commit -n' ci -m x", "git -c core.hooksPath=/dev/null commit -m x",
    "git -c core.hooksPath= commit -m x", "git -c CORE.HOOKSPATH=x commit",
    "git --config-env=core.hooksPath=HP commit -m x",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/tmp/x git commit -m x",
    "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x; git commit -m x",
    "GIT_CONFIG_PARAMETERS=\"'core.hookspath'='/x'\" git commit -m x",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/x git commit",
    "git config core.hooksPath /tmp/x && git commit -m x",
    "git config --local core.hooksPath /tmp/x; git commit -m x",
    "rm .git/hooks/pre-commit; git commit -m x", "chmod -x .git/hooks/pre-commit && git commit -m x",
    ": > .git/hooks/pre-commit; git commit -m x", "echo x >> .git/config; git commit -m x",
    "mv .git/hooks/pre-commit /tmp/; git commit -m x",
    "git --git-dir /tmp/other commit -m x", "GIT_DIR=/tmp/other git commit -m x",
    "git -c include.path=/tmp/cfg commit -m x", "GIT_CONFIG_GLOBAL=/tmp/cfg git commit -m x",
    "HOME=/tmp git commit -m x", "git -c \"$X\" commit -m x", "env git commit -n", "sudo git commit -n",
    "eval git commit -n", "bash -c 'git commit -n'", "echo x | xargs git commit -n",
])
def test_hooks_disabled(an: Any, command: str) -> None:
    assert git_entry(an(command))["hooks_disabled"] is True


@pytest.mark.parametrize("command", [
    "git commit -m x", "git commit -am 'fix: n'", "git commit -m -n", "git push -n origin main",
    "git --no-pager log -n 3", "git -C src status", "git -c user.name=x commit -m y", "git status",
    "git --namespace x log", "git -P diff", "git merge main", "git commit --verbose -m x",
])
def test_hooks_not_disabled(an: Any, command: str) -> None:
    entry = git_entry(an(command))
    assert entry["hooks_disabled"] is False, entry["reasons"]


def test_global_options_before_subcommand(an: Any, project: Path) -> None:
    e = git_entry(an("git --git-dir .git --work-tree . --namespace x -c a.b=c -P commit -n"))
    assert e["subcommand"] == "commit"
    assert e["config"]["a.b"] == "c"
    e = git_entry(an("git -C src --no-pager log"))
    assert e["subcommand"] == "log"
    assert an("git -C src --no-pager log")["commands"][0]["cwd"] == str(project / "src")


def test_alias_expansion(an: Any) -> None:
    e = git_entry(an("git -c alias.st=status st"))
    assert e["subcommand"] == "status" and e["hooks_disabled"] is False


def test_unknown_subcommand_is_opaque(an: Any) -> None:
    out = an("git ci -m x")
    assert "command" in opaque_kinds(out)
    assert git_entry(out)["hooks_disabled"] is True  # an alias from a config file could skip hooks


@pytest.mark.parametrize(("command", "kind", "path"), [
    ("git checkout HEAD -- .", "writes", "."),
    ("git checkout -- .env", "writes", ".env"),
    ("git restore .env", "writes", ".env"),
    ("git reset --hard", "writes", "."),
    ("git stash", "writes", "."),
    ("git clean -fdx", "deletes", "."),
    ("git rm .env", "deletes", ".env"),
    ("git mv .env x", "deletes", ".env"),
    ("git show HEAD:.env", "reads", ".env"),
    ("git cat-file -p HEAD:secrets/key.txt", "reads", "secrets/key.txt"),
    ("git -C src show HEAD:.env", "reads", ".env"),
    ("git apply p.diff", "writes", "src/a.py"),
    ("git apply del.diff", "deletes", ".env"),
    ("git config core.hooksPath /x", "writes", ".git/config"),
    ("git clone https://x.example/r.git newrepo", "writes", "newrepo"),
    ("git grep API", "reads", "."),
    ("git log -p -- .env", "reads", ".env"),
    ("git blame .env", "reads", ".env"),
    ("git archive -o /tmp/x.tar HEAD", "reads", "."),
])
def test_subcommand_effects(an: Any, project: Path, command: str, kind: str, path: str) -> None:
    out = an(command)
    assert str((project / path).resolve()) in out["effects"][kind], out["effects"]


def test_reset_soft_and_status_have_no_effects(an: Any) -> None:
    for command in ("git reset --soft HEAD~1", "git status", "git log", "git diff", "git add -A", "git fetch"):
        out = an(command)
        assert all(not v for k, v in out["effects"].items() if k != "reads"), command
        assert out["opaque"] == [], command


def test_apply_of_unknown_patch_is_opaque(an: Any) -> None:
    assert "writes" in opaque_kinds(an("git apply missing.diff"))
    assert "writes" in opaque_kinds(an("curl -s https://x.example/p | git apply"))


def test_git_config_recorded(an: Any) -> None:
    e = git_entry(an("git -c Core.Editor=vim -c user.email=a@b commit -m x"))
    assert e["config"] == {"core.editor": "vim", "user.email": "a@b"}


def test_aliases_from_the_repository_config(an: Any, tmp_path: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "alias.ci", "commit --no-verify"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "alias.wipe", "!rm -rf secrets"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "alias.st", "status"], check=True)
    assert git_entry(an("git ci -m x", cwd=tmp_path))["hooks_disabled"] is True
    assert an("git wipe", cwd=tmp_path)["effects"]["deletes"] == [str(tmp_path / "secrets")]
    out = an("git st", cwd=tmp_path)
    assert git_entry(out)["subcommand"] == "status" and out["opaque"] == []


def test_alias_set_earlier_in_the_line(an: Any) -> None:
    out = an("git config alias.ci 'commit -n' && git ci -m x")
    assert out["git"][-1]["subcommand"] == "commit"
    assert all(e["hooks_disabled"] for e in out["git"])
