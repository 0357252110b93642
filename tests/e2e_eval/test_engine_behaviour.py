"""Engine behaviour through the real `cupcake eval` process: global config, deadlines,
signals, bundle cache, compile errors, observability, help."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from cupcake_py.harness.opencode.examples import cupcake_command, isolated_env, run_eval

HEAD = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: [{tools}]
#     required_signals: [{signals}]
package cupcake.policies.{pkg}

import rego.v1

"""


def policy(pkg: str, body: str, tools: str = '"Bash"', signals: str = "") -> str:
    return HEAD.format(pkg=pkg, tools=tools, signals=signals) + body


def make_config(d: Path, policies: dict[str, str], rulebook: str = "") -> Path:
    (d / "policies/opencode").mkdir(parents=True, exist_ok=True)
    for name, text in policies.items():
        (d / "policies/opencode" / f"{name}.rego").write_text(text)
    if rulebook:
        (d / "rulebook.yml").write_text(rulebook)
    return d


def bash(cwd: Path, command: str) -> bytes:
    return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(cwd), "tool": "bash",
                       "args": {"command": command}}).encode()


DENY_CURL = policy("g.curl", 'deny contains {"rule_id": "G-CURL", "severity": "HIGH", "reason": "global: no curl"} if '
                   '{ contains(input.tool_input.command, "curl") }\n')
ASK_PUSH = policy("g.push", 'ask contains {"rule_id": "G-PUSH", "severity": "LOW", "reason": "global: push?"} if '
                  '{ contains(input.tool_input.command, "push") }\n')
CTX_ALL = policy("g.ctx", 'add_context contains "global context" if { true }\n')
DENY_CURL_PROJECT = policy("p.curl", 'deny contains {"rule_id": "P-CURL", "severity": "HIGH", "reason": "project"} '
                           'if { contains(input.tool_input.command, "curl") }\n')
HALT_PUSH = policy("p.push", 'halt contains {"rule_id": "P-PUSH", "severity": "HIGH", "reason": "project halt"} if '
                   '{ contains(input.tool_input.command, "push --force") }\n')


@pytest.fixture()
def world(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    project = tmp_path / "proj"
    make_config(project / ".cupcake", {"curl": DENY_CURL_PROJECT, "push": HALT_PUSH})
    cfg = tmp_path / "xdg-config"
    (cfg / "cupcake").mkdir(parents=True)
    make_config(cfg / "cupcake", {"curl": DENY_CURL, "push": ASK_PUSH, "ctx": CTX_ALL})
    env = isolated_env(tmp_path / "cache", cfg)
    from tests.e2e_eval.test_fail_closed import warm

    warm(project, env)  # both bundles built: the deadline covers builds, these tests are about decisions
    return project, cfg, env


def test_global_deny_short_circuits_project(world) -> None:  # type: ignore[no-untyped-def]
    project, _, env = world
    resp, code, _ = run_eval(bash(project, "curl x"), project, [], env)
    assert (resp, code) == ({"decision": "deny", "reason": "global: no curl", "rule_ids": ["G-CURL"]}, 0)


def test_global_ask_merges_with_project_halt(world) -> None:  # type: ignore[no-untyped-def]
    project, _, env = world
    resp, _, _ = run_eval(bash(project, "git push --force"), project, [], env)
    assert resp == {"decision": "block", "reason": "project halt", "rule_ids": ["P-PUSH"]}
    resp, _, _ = run_eval(bash(project, "git push"), project, [], env)
    assert resp == {"decision": "ask", "reason": "global: push?", "rule_ids": ["G-PUSH"]}
    resp, _, _ = run_eval(bash(project, "ls"), project, [], env)
    assert resp == {"decision": "allow", "context": ["global context"]}


def test_no_global_flag_and_explicit_global_dir(world, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project, cfg, env = world
    resp, _, _ = run_eval(bash(project, "curl x"), project, ["--no-global"], env)
    assert resp["reason"] == "project"
    other = make_config(tmp_path / "other-global", {"curl": ASK_PUSH})
    resp, _, _ = run_eval(bash(project, "curl push"), project, ["--global-config", str(other)], env)
    assert resp["reason"] == "project"  # the global ask loses to the project deny


def test_policy_dir_option(world, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project, _, env = world
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for arg in (str(project), str(project / ".cupcake")):
        resp, _, _ = run_eval(bash(project, "git push --force"), elsewhere, ["--policy-dir", arg, "--no-global"], env)
        assert resp["decision"] == "block"


def test_project_found_from_subdirectory(world) -> None:  # type: ignore[no-untyped-def]
    project, _, env = world
    sub = project / "a" / "b"
    sub.mkdir(parents=True)
    resp, _, _ = run_eval(bash(sub, "git push --force"), sub, ["--no-global"], env)
    assert resp["decision"] == "block"


def test_compile_error_fails_closed_with_location(tmp_path: Path) -> None:
    project = tmp_path / "p"
    make_config(project / ".cupcake", {"bad": policy("bad", "deny contains x if { x := y }\n")})
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    resp, code, stderr = run_eval(bash(project, "ls"), project, [], env)
    assert code == 2 and resp["decision"] == "deny"
    assert "bad.rego:" in resp["reason"] and "Traceback" not in stderr


@pytest.mark.parametrize(("files", "needle"), [
    ({"nometa": "package cupcake.policies.nometa\nimport rego.v1\ndeny contains 1 if { true }\n"}, "no METADATA"),
    ({"outside": HEAD.replace("cupcake.policies.", "").format(pkg="elsewhere", tools='"Bash"', signals="")
      + "deny contains 1 if { true }\n"}, "outside cupcake.policies"),
    ({"sig": policy("sig", "deny contains 1 if { false }\n", signals='"nosuch"')}, "nosuch"),
    ({"parse": "package cupcake.policies.x\ndeny contains if {\n"}, "parse.rego:"),
])
def test_configuration_mistakes_fail_closed(tmp_path: Path, files: dict[str, str], needle: str) -> None:
    project = tmp_path / "p"
    make_config(project / ".cupcake", files)
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    resp, code, stderr = run_eval(bash(project, "ls"), project, [], env)
    assert code == 2 and needle in resp["reason"], resp
    assert "Traceback" not in stderr


def test_rulebook_error_has_yaml_location(tmp_path: Path) -> None:
    project = tmp_path / "p"
    make_config(project / ".cupcake", {}, rulebook="signals:\n  a:\n    command: x\n    timeout: 3\n")
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    resp, code, _ = run_eval(bash(project, "ls"), project, [], env)
    assert code == 2 and "rulebook.yml:4:5: signals.a.timeout: unknown key" in resp["reason"], resp


def test_routing_miss_runs_no_signal(tmp_path: Path) -> None:
    project = tmp_path / "p"
    marker = tmp_path / "signal-ran"
    make_config(project / ".cupcake", {"s": policy("s", "deny contains 1 if { false }\n", signals='"touch"')},
                rulebook=f"signals:\n  touch:\n    command: touch {marker}\n")
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    read = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool": "read",
                       "args": {"filePath": "x"}}).encode()
    assert run_eval(read, project, [], env)[0] == {"decision": "allow"}
    assert not marker.exists()
    assert run_eval(bash(project, "ls"), project, [], env)[0] == {"decision": "allow"}
    assert marker.exists()


def test_deadline_kills_signal_group_and_fails_closed(tmp_path: Path) -> None:
    project = tmp_path / "p"
    pidfile = tmp_path / "pid"
    make_config(project / ".cupcake", {"s": policy("s", "deny contains 1 if { false }\n", signals='"hang"')},
                rulebook=f"signals:\n  hang:\n    command: 'sleep 60 & echo $! > {pidfile}; wait'\n"
                         "    timeout_seconds: 100\n")
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    from tests.e2e_eval.test_fail_closed import warm

    warm(project, env)  # the deadline covers the bundle build too: start from a warm cache
    t0 = time.monotonic()
    resp, code, stderr = run_eval(bash(project, "ls"), project, ["--timeout", "1.5"], env)
    elapsed = time.monotonic() - t0
    assert code == 2 and "deadline" in resp["reason"] and "hang" in resp["reason"], resp
    assert elapsed < 30
    pid = int(pidfile.read_text())
    time.sleep(0.2)
    assert not alive(pid)


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_debug_files_telemetry_and_trace(tmp_path: Path) -> None:
    project = tmp_path / "p"
    make_config(project / ".cupcake", {"d": DENY_CURL_PROJECT},
                rulebook="telemetry:\n  enabled: true\n  destination: .cupcake/telemetry\n")
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    resp, _, stderr = run_eval(bash(project, "curl   x"), project, ["--debug-files", "--trace", "all"], env)
    assert resp["decision"] == "deny"
    assert "cupcake trace:" in stderr and "wasm=" in stderr and "total=" in stderr
    [debug] = list((project / ".cupcake/debug").glob("*.txt"))
    text = debug.read_text()
    for section in ("== timings", "routed_policies", "cupcake.policies.p.curl", "decision_set", "== response",
                    '"command": "curl x"'):
        assert section in text, section
    [line] = (project / ".cupcake/telemetry/events.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["response"] == resp and record["routed_policies"] == [
        "cupcake.policies.builtins.rulebook_security_guardrails", "cupcake.policies.p.curl"]


def test_cache_hit_does_no_compiling_and_concurrent_evals_agree(tmp_path: Path) -> None:
    project = tmp_path / "p"
    make_config(project / ".cupcake", {"d": DENY_CURL_PROJECT})
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    procs = [subprocess.Popen([*cupcake_command(), "eval", "--trace", "bundle"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=project, env=env) for _ in range(3)]
    outs = [p.communicate(bash(project, "curl x"), timeout=120) for p in procs]
    assert all(json.loads(o)["decision"] == "deny" for o, _ in outs)
    assert len(list((tmp_path / "cache/cupcake-py/bundles").glob("*.bundle"))) == 1
    # A hit must not import the compiler at all. Of the WASM backend, the host loads only the ABI
    # table it checks modules against (cupcake_py.wasm.abi, a leaf) with its package.
    code = ("import sys, runpy; sys.argv=['cupcake','eval']; "
            "from cupcake_py.app.fast_eval import main; rc = main([]); "
            "bad = [m for m in ('cupcake_py.rego', 'cupcake_py.plan', 'yaml', 'pydantic', 'typer') if m in sys.modules]"
            " + sorted(m for m in sys.modules if m.startswith('cupcake_py.wasm') and m not in "
            "('cupcake_py.wasm', 'cupcake_py.wasm.abi', 'cupcake_py.wasm.errors')); "
            "sys.stderr.write('LOADED:' + ','.join(bad)); sys.exit(rc)")
    proc = subprocess.run([os.environ.get("PYTHON", __import__("sys").executable), "-c", code], input=bash(project, "curl x"),
                          capture_output=True, cwd=project, env=env, timeout=120)
    assert json.loads(proc.stdout)["decision"] == "deny"
    assert proc.stderr.decode().endswith("LOADED:"), proc.stderr


def test_eval_help_teaches() -> None:
    proc = subprocess.run([*cupcake_command(), "eval", "--help"], capture_output=True, timeout=120)
    out = proc.stdout.decode()
    assert proc.returncode == 0
    for word in ("--policy-dir", "--timeout", "--strict", "fail", "Exit status", "updated_args"):
        assert word in out, word
    assert out.count("--help") == 1 and "╭" not in out  # one option list, no second typer panel
