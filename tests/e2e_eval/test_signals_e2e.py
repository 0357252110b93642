"""Shell signals through the real `cupcake eval`: what a policy sees for a crash (killed by a
signal), 3 MB of output, a timeout (whose child processes die with it), undecodable bytes and
JSON too deep to parse; and git signals on a real repository."""

from __future__ import annotations

import json
import time
from pathlib import Path

from cupcake_py.harness.opencode.examples import GIT_ENV, isolated_env, run_eval
from tests.e2e_eval.test_engine_behaviour import alive, bash, make_config, policy

REPORT = policy("report", """add_context contains sprintf("crash exit=%v success=%v", [input.signals.crash.exit_code, input.signals.crash.success])

add_context contains sprintf("big chars=%d", [count(input.signals.big)])

add_context contains sprintf("slow timed_out=%v exit=%v", [input.signals.slow.timed_out, input.signals.slow.exit_code])

add_context contains sprintf("binary=%v", [input.signals.binary])

add_context contains sprintf("deep string=%v chars=%d", [is_string(input.signals.deep), count(input.signals.deep)])
""", signals='"crash", "big", "slow", "binary", "deep"')


def test_signal_results_seen_by_policies(tmp_path: Path) -> None:
    project = tmp_path / "p"
    pidfile = tmp_path / "slow-child.pid"
    rulebook = f"""signals:
  crash: {{command: "echo partial; kill -9 $$"}}
  big: {{command: "head -c 3000000 /dev/zero | tr '\\\\0' x"}}
  slow: {{command: "sleep 60 & echo $! > {pidfile}; wait", timeout_seconds: 1}}
  binary: {{command: "printf '\\\\377\\\\376ok'"}}
  deep: {{command: "python3 -c \\"print('[' * 3000 + ']' * 3000)\\""}}
"""
    make_config(project / ".cupcake", {"report": REPORT}, rulebook)
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    t0 = time.monotonic()
    resp, code, stderr = run_eval(bash(project, "ls"), project, ["--timeout", "30"], env)
    assert time.monotonic() - t0 < 60
    assert code == 0, (resp, stderr)
    assert resp == {"decision": "allow", "context": sorted([
        "crash exit=-1 success=false",
        f"big chars={1 << 20}",
        "slow timed_out=true exit=-1",
        "binary=\ufffd\ufffdok",
        "deep string=true chars=6000",
    ])}, resp
    time.sleep(0.2)
    assert not alive(int(pidfile.read_text())), "the timed-out signal's child must be killed with its group"


GIT_POLICY = policy("gitinfo", """add_context contains sprintf("branch=%v dirty=%v staged=%v untracked=%v repo=%v", [
	input.signals["git.branch"], input.signals["git.is_dirty"], input.signals["git.staged_files"],
	input.signals["git.untracked_files"], input.signals["git.is_repo"],
])

add_context contains sprintf("last=%s", [input.signals["git.last_commit"].message]) if input.signals["git.last_commit"]
""", signals='"git.branch", "git.is_dirty", "git.staged_files", "git.untracked_files", "git.is_repo", "git.last_commit"')


def test_git_signals_on_a_real_repository(tmp_path: Path) -> None:
    import subprocess

    project = tmp_path / "p"
    make_config(project / ".cupcake", {"gitinfo": GIT_POLICY})
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    genv = {**env, **GIT_ENV}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=project, env=genv, check=True, capture_output=True)

    resp, _, _ = run_eval(bash(project, "ls"), project, [], env)
    assert resp == {"decision": "allow", "context": ["branch=null dirty=false staged=[] untracked=[] repo=false"]}
    git("init", "-q", "-b", "trunk")
    (project / "a.txt").write_text("a\n")
    git("add", "a.txt", ".cupcake")
    git("commit", "-qm", "first commit")
    resp, _, _ = run_eval(bash(project, "ls"), project, [], env)
    assert resp["context"] == ["branch=trunk dirty=false staged=[] untracked=[] repo=true", "last=first commit"]
    git("checkout", "-qb", "feature/x")
    (project / "b.txt").write_text("b\n")
    git("add", "b.txt")
    (project / "c.txt").write_text("c\n")
    sub = project / "sub"
    sub.mkdir()
    resp, _, _ = run_eval(json.dumps({**json.loads(bash(project, "ls")), "cwd": str(sub)}).encode(), sub, [], env)
    assert resp["context"] == ['branch=feature/x dirty=true staged=["b.txt"] untracked=["c.txt"] repo=true',
                               "last=first commit"]
