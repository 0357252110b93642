"""The one wall-clock limit left around the analysis is the evaluation's deadline: when reading a
command takes longer (here the git history signal, with a `git` that hangs), `cupcake eval` fails
closed with a reason naming the deadline, leaves no process behind, and answers the same command
normally once git answers (through the real process)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cupcake_py.harness.opencode.examples import GIT_ENV, isolated_env, run_eval
from tests.e2e_eval.test_engine_behaviour import bash, make_config
from tests.e2e_eval.test_fail_closed import assert_killed_at_the_deadline, hanging_git, warm


def _world(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "p"
    make_config(project / ".cupcake", {})
    make_config(tmp_path / "cfg" / "cupcake", {}, "builtins:\n  sensitive_data_protection: {}\n")
    (project / ".env").write_text("TOKEN=x\n")
    env = {**isolated_env(tmp_path / "cache", tmp_path / "cfg"), **GIT_ENV}
    for step in (["init", "-q", "-b", "main"], ["add", ".env"], ["commit", "-qm", "env"]):
        subprocess.run(["git", *step], cwd=project, env=env, check=True, capture_output=True)
    return project, env


def test_history_signal_past_the_deadline_fails_closed(tmp_path: Path) -> None:
    project, env = _world(tmp_path)
    warm(project, env)  # the bundle is built first: on a loaded machine its build alone can pass a 1 s deadline
    hanging, pidfile = hanging_git(tmp_path, env)
    assert_killed_at_the_deadline(bash(project, "git log -p"), project, hanging, pidfile)
    resp, code, stderr = run_eval(bash(project, "git log -p"), project, ["--timeout", "60"], env)
    assert code == 0 and isinstance(resp, dict) and resp["decision"] == "deny", (resp, stderr)
    assert "history" in resp["reason"]
    resp, code, stderr = run_eval(bash(project, "git log --oneline"), project, ["--timeout", "60"], hanging)
    assert (resp, code) == ({"decision": "allow"}, 0), stderr  # no history printed: git is not asked
