"""Fail-closed audit of the eval path through the real `cupcake eval` process: whatever goes
wrong (WASM memory cap, deadline, a malformed decision, corrupt or concurrently rewritten
caches, a crashing or hanging native signal provider, an unexpected exception, a closed
stdout), the answer is {"decision": "deny", "reason": "cupcake: …"} with exit status 2 (or the
correct decision when the engine can recover, e.g. by rebuilding a cache entry), never a
traceback, and no process is left running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cupcake_py.harness.opencode.examples import cupcake_command, isolated_env, run_eval
from tests.e2e_eval.test_engine_behaviour import alive, bash, make_config, policy

DENY_RM = policy("rm", 'deny contains {"rule_id": "RM", "reason": "no rm"} if { startswith(input.tool_input.command, "rm") }\n')


def assert_fail_closed(resp: object, code: int, stderr: str, needle: str) -> None:
    assert code == 2, (resp, stderr)
    assert isinstance(resp, dict) and set(resp) == {"decision", "reason"} and resp["decision"] == "deny", resp
    assert resp["reason"].startswith("cupcake: ") and needle in resp["reason"], resp
    assert "Traceback" not in stderr, stderr


def world(tmp_path: Path, policies: dict[str, str], rulebook: str = "") -> tuple[Path, dict[str, str]]:
    project = tmp_path / "p"
    make_config(project / ".cupcake", policies, rulebook)
    return project, isolated_env(tmp_path / "cache", tmp_path / "cfg")


def warm(project: Path, env: dict[str, str]) -> None:
    """Build the bundle with an event no Bash policy is routed to (the deadline covers the build:
    a test of a later phase's deadline starts from a warm cache)."""
    event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool": "todowrite",
                        "args": {"todos": []}}).encode()
    assert run_eval(event, project, ["--timeout", "120"], env)[1] == 0


# ------------------------------------------------------------------ the policy itself


@pytest.mark.parametrize(("body", "needle"), [
    ('deny contains {"reason": "no rule id"} if { true }\n', "lacks the required field `rule_id`"),
    ('halt contains {"rule_id": "H"} if { true }\n', "lacks the required field `reason`"),
    ('ask contains "just a string" if { true }\n', "must be an object with reason and rule_id"),
    ('deny contains {"rule_id": 7, "reason": "r"} if { true }\n', "`rule_id` must be a string"),
    ('modify contains {"rule_id": "M", "reason": "r"} if { true }\n', "lacks the required field `updated_input`"),
    ('modify contains {"rule_id": "M", "reason": "r", "updated_input": {}, "priority": 900} if { true }\n',
     "`priority` must be an integer from 0 to 255"),
    ('add_context contains {"not": "a string"} if { true }\n', "add_context of cupcake.policies.bad must be a string"),
])
def test_malformed_decision_objects_fail_closed(tmp_path: Path, body: str, needle: str) -> None:
    project, env = world(tmp_path, {"bad": policy("bad", body)})
    resp, code, stderr = run_eval(bash(project, "ls"), project, [], env)
    assert_fail_closed(resp, code, stderr, needle)


def test_memory_cap_fails_closed(tmp_path: Path) -> None:
    body = ('deny contains {"rule_id": "M", "reason": "r"} if {\n'
            '  s := concat("", [x | some i in numbers.range(1, 400000); x := sprintf("%d-padding", [i])])\n'
            '  count(s) == -1\n}\n')
    project, env = world(tmp_path, {"mem": policy("mem", body)})
    resp, code, stderr = run_eval(bash(project, "ls"), project, ["--wasm-max-memory", "2MB"], env)
    assert_fail_closed(resp, code, stderr, "policy evaluation failed")


def test_wasm_deadline_fails_closed(tmp_path: Path) -> None:
    # Three nested scans over one array: far more work than the deadline allows.
    body = ('deny contains {"rule_id": "D", "reason": "r"} if {\n'
            '  r := numbers.range(1, 4000)\n  some i in r\n  some j in r\n  some k in r\n  k < 0\n}\n')
    project, env = world(tmp_path, {"slow": policy("slow", body)})
    warm(project, env)
    t0 = time.monotonic()
    # Scans still allocate a little per step (a clean-clone CI run once reached a 1 GB cap before the
    # 1 s deadline): give the module all of wasm32's 4 GB so the deadline is what stops it.
    resp, code, stderr = run_eval(bash(project, "ls"), project, ["--timeout", "1", "--wasm-max-memory", "4GB"], env)
    assert_fail_closed(resp, code, stderr, "deadline")
    assert time.monotonic() - t0 < 60


# ------------------------------------------------------------------ caches


def _bundle_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache/cupcake-py/bundles").glob("*.bundle"))


@pytest.mark.parametrize("damage", ["truncate", "flip-header", "flip-wasm", "garbage", "empty", "directory"])
def test_corrupt_bundle_cache_is_rebuilt(tmp_path: Path, damage: str) -> None:
    project, env = world(tmp_path, {"rm": DENY_RM})
    good = {"decision": "deny", "reason": "no rm", "rule_ids": ["RM"]}
    assert run_eval(bash(project, "rm x"), project, [], env)[0] == good
    [entry] = _bundle_files(tmp_path)
    blob = bytearray(entry.read_bytes())
    if damage == "truncate":
        entry.write_bytes(blob[: len(blob) // 2])
    elif damage == "flip-header":
        at = blob.index(b'"routing"') + 3
        blob[at] ^= 0x01
        entry.write_bytes(bytes(blob))
    elif damage == "flip-wasm":
        blob[-10] ^= 0xFF
        entry.write_bytes(bytes(blob))
    elif damage == "garbage":
        entry.write_bytes(os.urandom(len(blob)))
    elif damage == "empty":
        entry.write_bytes(b"")
    else:
        entry.unlink()
        entry.mkdir()
    resp, code, stderr = run_eval(bash(project, "rm x"), project, [], env)
    assert (resp, code) == (good, 0), stderr
    assert "Traceback" not in stderr
    if damage != "directory":
        assert run_eval(bash(project, "rm x"), project, ["--trace", "bundle"], env)[0] == good


def test_corrupt_native_module_cache_recovers(tmp_path: Path) -> None:
    project, env = world(tmp_path, {"rm": DENY_RM})
    good = {"decision": "deny", "reason": "no rm", "rule_ids": ["RM"]}
    assert run_eval(bash(project, "rm x"), project, [], env)[0] == good
    entries = list((tmp_path / "cache/cupcake-py/modules").glob("*"))
    assert entries
    for e in entries:
        if e.is_file():
            e.write_bytes(os.urandom(max(64, e.stat().st_size // 3)))
    resp, code, stderr = run_eval(bash(project, "rm x"), project, [], env)
    assert (resp, code) == (good, 0) and "Traceback" not in stderr


def test_unusable_cache_dir_still_answers(tmp_path: Path) -> None:
    project, env = world(tmp_path, {"rm": DENY_RM})
    (tmp_path / "cache").write_text("a file where the cache directory should be")
    resp, code, stderr = run_eval(bash(project, "rm x"), project, [], env)
    assert (resp, code) == ({"decision": "deny", "reason": "no rm", "rule_ids": ["RM"]}, 0), stderr


def test_concurrent_writer_never_yields_a_wrong_answer(tmp_path: Path) -> None:
    """One thread keeps replacing the cache entry (garbage, a truncated copy, the good entry; by
    atomic rename and by rewriting in place) while evaluations run: each answers correctly."""
    project, env = world(tmp_path, {"rm": DENY_RM})
    good = {"decision": "deny", "reason": "no rm", "rule_ids": ["RM"]}
    assert run_eval(bash(project, "rm x"), project, [], env)[0] == good
    [entry] = _bundle_files(tmp_path)
    valid = entry.read_bytes()
    stop = threading.Event()

    def writer() -> None:
        variants = [os.urandom(len(valid)), valid[: len(valid) // 3], valid]
        i = 0
        while not stop.is_set():
            data = variants[i % 3]
            if i % 2:
                tmp = entry.with_suffix(".w")
                tmp.write_bytes(data)
                os.replace(tmp, entry)
            else:
                with open(entry, "wb") as f:
                    f.write(data[: len(data) // 2])
                    f.flush()
                    f.write(data[len(data) // 2:])
            i += 1
            time.sleep(0.001)

    t = threading.Thread(target=writer)
    t.start()
    try:
        procs = [subprocess.Popen([*cupcake_command(), "eval"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=project, env=env) for _ in range(4)]
        outs = [p.communicate(bash(project, "rm x"), timeout=300) for p in procs]
    finally:
        stop.set()
        t.join()
    for (out, err), p in zip(outs, procs, strict=True):
        assert (json.loads(out), p.returncode) == (good, 0), err
        assert b"Traceback" not in err


# ------------------------------------------------------------------ native signal providers


GIT_POLICY = policy("g", 'deny contains {"rule_id": "G", "reason": "main"} if { input.signals["git.branch"] == "main" }\n',
                    signals='"git.branch"')


def test_crashing_native_provider_fails_closed(tmp_path: Path) -> None:
    project, env = world(tmp_path, {"g": GIT_POLICY})
    patch = ("import cupcake_py.engine.native_signals.git as g\n"
             "def boom(*a, **k): raise RuntimeError('provider bug')\ng.gather = boom")
    resp, code, stderr = _run_patched(project, env, patch)
    assert_fail_closed(resp, code, stderr, "git.branch")
    assert "provider bug" in resp["reason"]  # type: ignore[index]


def test_missing_git_leaves_the_git_signals_out(tmp_path: Path) -> None:
    project, env = world(tmp_path, {"g": GIT_POLICY})
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    resp, code, _ = run_eval(bash(project, "ls"), project, [], env)
    assert (resp, code) == ({"decision": "deny", "reason": "main", "rule_ids": ["G"]}, 0)  # git found: branch known
    nogit = tmp_path / "nogit"
    nogit.mkdir()
    for tool in ("sh", "env"):  # anything but git
        os.symlink(f"/bin/{tool}", nogit / tool)
    resp, code, stderr = run_eval(bash(project, "ls"), project, [], {**env, "PATH": str(nogit)})
    assert (resp, code) == ({"decision": "allow"}, 0), stderr
    assert "Traceback" not in stderr


def test_hanging_native_provider_hits_the_hard_deadline_and_leaves_no_process(tmp_path: Path) -> None:
    project, env = world(tmp_path, {"g": GIT_POLICY})
    env, pidfile = hanging_git(tmp_path, env)
    warm(project, env)
    assert_killed_at_the_deadline(bash(project, "ls"), project, env, pidfile)


def hanging_git(tmp_path: Path, env: dict[str, str]) -> tuple[dict[str, str], Path]:
    """`env` with a `git` first on PATH that records its pid in the returned file and hangs."""
    pidfile = tmp_path / "git.pid"
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    fake = bindir / "git"
    fake.write_text(f"#!/bin/sh\necho $$ >> {pidfile}\nexec sleep 60\n")
    fake.chmod(0o755)
    return {**env, "PATH": f"{bindir}:{env['PATH']}"}, pidfile


def assert_killed_at_the_deadline(stdin: bytes, project: Path, env: dict[str, str], pidfile: Path) -> None:
    """`cupcake eval --timeout 1` fails closed at its deadline and leaves none of the hanging gits alive."""
    t0 = time.monotonic()
    resp, code, stderr = run_eval(stdin, project, ["--timeout", "1"], env)
    assert time.monotonic() - t0 < 30
    assert_fail_closed(resp, code, stderr, "deadline")
    time.sleep(0.2)
    pids = [int(p) for p in pidfile.read_text().split()]
    assert pids and not any(alive(p) for p in pids)


# ------------------------------------------------------------------ the process itself


def _run_patched(project: Path, env: dict[str, str], patch: str) -> tuple[object, int, str]:
    """fast_eval.main in a fresh interpreter after `patch` (Python code) has run."""
    code = (f"import sys\n{patch}\nfrom cupcake_py.app.fast_eval import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", code], input=bash(project, "rm x"), capture_output=True,
                          cwd=project, env=env, timeout=300)
    out = proc.stdout.decode()
    try:
        parsed: object = json.loads(out)
    except ValueError:
        parsed = out
    return parsed, proc.returncode, proc.stderr.decode()


@pytest.mark.parametrize(("patch", "needle"), [
    ("import cupcake_py.engine.synthesis as s\ndef boom(ds): raise ZeroDivisionError('synthetic')\ns.synthesize = boom\n"
     "import cupcake_py.engine.evaluator as e\ne.synthesize = boom",
     "internal error: ZeroDivisionError: synthetic"),
    ("import cupcake_py.harness.opencode.preprocess as p\ndef boom(*a, **k): raise KeyboardInterrupt()\n"
     "p.preprocess = boom", "internal error: KeyboardInterrupt"),
    ("import cupcake_py.engine.bundle as b\ndef boom(*a, **k): raise MemoryError('no memory')\nb.load = boom",
     "internal error: MemoryError: no memory"),
    ("import cupcake_py.engine.evaluator as e\ndef boom(*a, **k): raise RecursionError()\ne.parse_event = boom",
     "too deeply nested"),
])
def test_any_exception_fails_closed(tmp_path: Path, patch: str, needle: str) -> None:
    project, env = world(tmp_path, {"rm": DENY_RM})
    resp, code, stderr = _run_patched(project, env, patch)
    assert_fail_closed(resp, code, stderr, needle)


def test_failing_observability_does_not_change_the_answer(tmp_path: Path) -> None:
    project, env = world(tmp_path, {"rm": DENY_RM})
    patch = ("import cupcake_py.app.fast_eval as f\ndef boom(*a, **k): raise TypeError('cannot trace')\n"
             "f.print_trace = boom")
    code = (f"import sys\n{patch}\nsys.exit(f.main(['--trace', 'all']))\n")
    proc = subprocess.run([sys.executable, "-c", code], input=bash(project, "rm x"), capture_output=True,
                          cwd=project, env=env, timeout=300)
    assert json.loads(proc.stdout) == {"decision": "deny", "reason": "no rm", "rule_ids": ["RM"]}
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert b"could not write observability output: TypeError: cannot trace" in proc.stderr


def test_closed_stdout_exits_2_without_traceback(tmp_path: Path) -> None:
    project, env = world(tmp_path, {"rm": DENY_RM})
    proc = subprocess.run([*cupcake_command(), "eval"], input=bash(project, "rm x"), capture_output=False,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=project, env=env, timeout=300,
                          preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr, proc.stderr
