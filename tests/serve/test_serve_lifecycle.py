"""`cupcake serve` over time: policy, rulebook and global-config changes picked up without a
restart, 20 projects served side by side, a runaway policy killed at the deadline while the
server keeps serving, an internal error answered with a deny, memory flat over many requests."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import pytest

from tests.e2e_eval.test_engine_behaviour import policy
from tests.serve.support import DENY_RM, Server, project, request, touch_later, warm

DENY_LS = policy("rm", 'deny contains {"rule_id": "LS", "reason": "no ls"} if { startswith(input.tool_input.command, "ls") }\n')


def decision(srv: Server, rid: object, cwd: Path, command: str) -> str:
    got = srv.ask(request(rid, cwd, command))
    assert got["id"] == rid and got["exit_code"] == 0, got
    return str(got["response"]["decision"])


def test_policy_edit_add_remove_picked_up_without_restart(tmp_path: Path) -> None:
    srv = Server(tmp_path, "--no-global")
    proj = project(tmp_path / "p", {"rm": DENY_RM})
    pol = proj / ".cupcake/policies/opencode"
    assert decision(srv, 1, proj, "rm x") == "deny" and decision(srv, 2, proj, "ls") == "allow"
    touch_later(pol / "rm.rego", DENY_LS)  # edited in place
    assert decision(srv, 3, proj, "rm x") == "allow" and decision(srv, 4, proj, "ls") == "deny"
    (pol / "sub").mkdir()
    (pol / "sub/new.rego").write_text(policy("new", 'deny contains {"rule_id": "N", "reason": "n"} if '
                                               '{ contains(input.tool_input.command, "curl") }\n'))
    assert decision(srv, 5, proj, "curl x") == "deny"
    (pol / "sub/new.rego").unlink()
    assert decision(srv, 6, proj, "curl x") == "allow"
    tmp = pol / "rm.rego.tmp"
    tmp.write_text(DENY_RM)
    tmp.rename(pol / "rm.rego")  # an editor's atomic save
    assert decision(srv, 7, proj, "rm x") == "deny"
    assert srv.stop()[0] == 0


def test_rulebook_and_global_config_changes_picked_up(tmp_path: Path) -> None:
    srv = Server(tmp_path)
    proj = project(tmp_path / "p", {})
    assert decision(srv, 1, proj, "git commit --no-verify -m x") == "allow"
    touch_later(proj / ".cupcake/rulebook.yml", "builtins:\n  git_block_no_verify: {}\n")
    assert decision(srv, 2, proj, "git commit --no-verify -m x") == "deny"
    glob = tmp_path / "cfg/cupcake"
    project(glob.parent, {})  # nothing yet: cfg/.cupcake is not the global dir
    (glob / "policies/opencode").mkdir(parents=True)
    assert decision(srv, 3, proj, "curl x") == "allow"
    (glob / "policies/opencode/g.rego").write_text(
        policy("g", 'deny contains {"rule_id": "G", "reason": "global"} if { contains(input.tool_input.command, "curl") }\n'))
    assert decision(srv, 4, proj, "curl x") == "deny"
    srv.stop()


def test_twenty_projects_interleaved(tmp_path: Path) -> None:
    srv = Server(tmp_path, "--no-global")
    projects = [project(tmp_path / f"p{i}", {"w": policy(
        "w", f'deny contains {{"rule_id": "W{i}", "reason": "p{i}"}} if {{ input.tool_input.command == "word{i}" }}\n')})
        for i in range(20)]
    sent = []
    for rnd in range(3):
        for i, proj in enumerate(projects):
            for j in (i, (i + 1) % 20):
                rid = f"{rnd}-{i}-{j}"
                srv.send(request(rid, proj, f"word{j}"))
                sent.append((rid, i == j, i))
    for rid, denied, i in sent:
        got = srv.recv()
        assert got["id"] == rid
        if denied:
            assert got["response"] == {"decision": "deny", "reason": f"p{i}", "rule_ids": [f"W{i}"]}
        else:
            assert got["response"]["decision"] == "allow", got
    srv.stop()


RUNAWAY = policy("slow", 'deny contains {"rule_id": "D", "reason": "r"} if {\n'
                         '  startswith(input.tool_input.command, "spin")\n'
                         '  r := numbers.range(1, 4000)\n  some i in r\n  some j in r\n  some k in r\n  k < 0\n}\n'
                         'deny contains {"rule_id": "RM", "reason": "no rm"} if { startswith(input.tool_input.command, "rm") }\n')


def test_runaway_policy_is_killed_at_the_deadline_and_the_server_keeps_serving(tmp_path: Path) -> None:
    srv = Server(tmp_path, "--no-global", "--timeout", "0.5", "--wasm-max-memory", "1GB")
    slow = project(tmp_path / "slow", {"slow": RUNAWAY})
    other = project(tmp_path / "other", {"rm": DENY_RM})
    warm(srv, slow)
    warm(srv, other)
    assert decision(srv, 0, slow, "rm x") == "deny"  # warm
    t0 = time.monotonic()
    got = srv.ask(request(1, slow, "spin"))
    assert time.monotonic() - t0 < 30
    assert got["exit_code"] == 2 and "deadline" in got["response"]["reason"], got
    assert decision(srv, 2, other, "rm x") == "deny"
    assert decision(srv, 3, slow, "rm x") == "deny"  # the trapped instance was rebuilt
    assert srv.ask(request(4, slow, "spin"))["exit_code"] == 2
    assert decision(srv, 5, slow, "ls") == "allow"
    code, stderr = srv.stop()
    assert code == 0 and "Traceback" not in stderr


def test_internal_error_answers_deny_and_serving_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In process: an unexpected exception inside one evaluation (here from synthesis)."""
    import cupcake_py.engine.evaluator as ev
    from cupcake_py.app.serve import serve
    from cupcake_py.engine.options import EvalOptions

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    proj = project(tmp_path / "p", {"rm": DENY_RM})
    real = ev.synthesize
    calls = {"n": 0}

    def flaky(ds):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise ZeroDivisionError("synthetic")
        return real(ds)

    monkeypatch.setattr(ev, "synthesize", flaky)
    lines = b"\n".join(request(i, proj, "rm x") for i in range(3)) + b"\n"
    out = io.BytesIO()
    assert serve(EvalOptions(no_global=True), io.BytesIO(lines), out) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [a["exit_code"] for a in answers] == [0, 2, 0]
    assert answers[1]["response"] == {"decision": "deny",
                                      "reason": "cupcake: internal error: ZeroDivisionError: synthetic"}
    assert answers[0]["response"]["decision"] == answers[2]["response"]["decision"] == "deny"


def test_memory_stays_flat(tmp_path: Path) -> None:
    """RSS sampled over 3,000 requests (routed WASM evaluations with host builtins, 3 projects):
    after warm-up it grows by less than 8 MiB. benches/serve.py runs the 100,000-request version."""
    srv = Server(tmp_path, "--no-global")
    sprintf = policy("f", 'deny contains {"rule_id": "F", "reason": sprintf("no %s", [input.tool_input.command])} '
                          'if { regex.match("^rm", input.tool_input.command) }\n')
    projects = [project(tmp_path / f"p{i}", {"f": sprintf}) for i in range(3)]
    samples = []
    batch = 250
    for rnd in range(12):
        for i in range(batch):
            srv.send(request(i, projects[i % 3], f"rm file{rnd}-{i}" if i % 2 else "ls"))
        for _ in range(batch):
            srv.recv()
        samples.append(srv.rss_kib())
    srv.stop()
    base = samples[1]
    assert max(samples[2:]) - base < 8 * 1024, samples


def test_without_inotify_the_stat_walk_still_sees_every_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In process, with inotify unavailable (another OS, no libc): each request compares stats."""
    from cupcake_py.engine import watch
    from cupcake_py.engine.options import EvalOptions
    from cupcake_py.engine.warm import WarmSource

    monkeypatch.setattr(watch, "_libc", [None])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    proj = project(tmp_path / "p", {"rm": DENY_RM})
    source = WarmSource(EvalOptions().wasm_max_memory)
    from cupcake_py.app.serve import handle

    def ask(rid: int, command: str) -> str:
        got = handle(request(rid, proj, command), EvalOptions(no_global=True), source)
        return str(got["response"]["decision"])

    assert ask(1, "rm x") == "deny" and ask(2, "rm y") == "deny"
    assert source.reloads == 1  # unchanged stats: no reload
    touch_later(proj / ".cupcake/policies/opencode/rm.rego", DENY_LS)
    assert ask(3, "rm x") == "allow" and ask(4, "ls") == "deny"
    assert source.reloads == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux-only")
def test_with_inotify_an_unchanged_config_costs_no_stat_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cupcake_py.app.serve import handle
    from cupcake_py.engine import warm
    from cupcake_py.engine.options import EvalOptions

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    proj = project(tmp_path / "p", {"rm": DENY_RM})
    walks = []
    real = warm.signature
    monkeypatch.setattr(warm, "signature", lambda cfg: walks.append(cfg) or real(cfg))
    source = warm.WarmSource(EvalOptions().wasm_max_memory)
    for i in range(5):
        assert handle(request(i, proj, "rm x"), EvalOptions(no_global=True), source)["response"]["decision"] == "deny"
    assert len(walks) == 1
    touch_later(proj / ".cupcake/policies/opencode/rm.rego", DENY_LS)
    assert handle(request(9, proj, "rm x"), EvalOptions(no_global=True), source)["response"]["decision"] == "allow"
    assert len(walks) == 2 and source.reloads == 2
