"""`cupcake init` and `cupcake verify` leave the caches warm: the first `cupcake eval` after
them reports `bundle_cache=hit` and `module_cache=hit` in its --trace line (nothing compiled)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run(args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cupcake_py", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=300)


def first_eval(proj: Path, env: dict[str, str]) -> tuple[dict[str, object], str]:
    event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(proj), "tool": "bash",
                        "args": {"command": "git push --force origin main"}})
    proc = run(["eval", "--harness", "opencode", "--trace", "bundle,wasm"], proj, env, event)
    return json.loads(proc.stdout), proc.stderr


def test_first_eval_after_init_and_after_verify_compiles_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proj = tmp_path / "proj"
    proj.mkdir()
    r = run(["init", "--harness", "opencode"], proj, env)
    assert r.returncode == 0 and "the first `cupcake eval` compiles nothing" in r.stdout, r.stdout + r.stderr
    decision, trace = first_eval(proj, env)
    assert decision["decision"] == "deny"
    assert "project:bundle_cache=hit" in trace and "project:module_cache=hit" in trace, trace
    # a policy change makes the cache cold; verify warms it again
    policy = proj / ".cupcake/policies/opencode/example.rego"
    policy.write_text(policy.read_text().replace("force-pushing", "Force-pushing"))  # new WASM too
    r = run(["verify"], proj, env)
    assert r.returncode == 0 and "[ok] warm cache" in r.stdout, r.stdout + r.stderr
    decision, trace = first_eval(proj, env)
    assert decision["decision"] == "deny"
    assert "project:bundle_cache=hit" in trace and "project:module_cache=hit" in trace, trace
    # the control: without warming, the first eval compiles (the trace says miss; building the
    # bundle also leaves its native code cached, so module_cache is not the witness here)
    policy.write_text(policy.read_text().replace("Force-pushing", "FORCE-pushing"))
    _, trace = first_eval(proj, env)
    assert "project:bundle_cache=miss" in trace, trace
