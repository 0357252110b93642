"""The generated aggregator (engine/routed_aggregator.py) gives the decisions of the shipped one,
restricted to the routed packages, in the same order; packages that are not routed are never
evaluated (a policy that would trap when evaluated costs nothing unless routed); a custom
system/evaluate.rego keeps its own aggregator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cupcake_py.core import jsonio
from cupcake_py.engine import bundle as bundles
from cupcake_py.engine import routed_aggregator
from cupcake_py.engine.project import find_project
from cupcake_py.engine.routed_aggregator import ROUTED_ENTRYPOINT, ROUTED_INPUT, package_order, routed_input
from cupcake_py.engine.routing import lookup
from cupcake_py.host import HostOptions, PolicyModule
from tests.e2e_eval.test_engine_behaviour import make_config, policy

POLICIES = {
    "a": policy("a", 'deny contains {"rule_id": "A", "reason": "a"} if { contains(input.tool_input.command, "x") }\n'
                     'ask contains {"rule_id": "A2", "reason": "a ask"} if { contains(input.tool_input.command, "y") }\n'),
    "a_b": policy("a.b", 'deny contains {"rule_id": "AB", "reason": "ab"} if { contains(input.tool_input.command, "x") }\n'
                         'add_context contains "ctx from a.b" if { true }\n'),
    "dash": policy('z["my-pkg"]', 'halt contains {"rule_id": "H", "reason": "h"} if { input.tool_input.command == "h" }\n'),
    "edit": policy("ed", 'deny contains {"rule_id": "E", "reason": "e"} if { true }\n', tools='"Edit"'),
    "many": policy("many", 'deny contains {"rule_id": sprintf("M%d", [i]), "reason": "m"} if {\n'
                           '  contains(input.tool_input.command, "x")\n  some i in numbers.range(1, 3)\n}\n'),
}


def _instance(tmp_path: Path, extra: dict[str, str] | None = None,  # type: ignore[no-untyped-def]
              monkeypatch: pytest.MonkeyPatch | None = None):
    if monkeypatch is not None:  # also plan the walking aggregator, to compare with it
        compile_modules = bundles.compile_modules
        monkeypatch.setattr(bundles, "compile_modules",
                            lambda mods, eps=None: compile_modules(mods, [bundles.ENTRYPOINT, *(eps or [])]))
    make_config(tmp_path / ".cupcake", {**POLICIES, **(extra or {})},
                "builtins:\n  git_block_no_verify: {}\n  protected_paths: {paths: [secrets/]}\n")
    b = bundles.build(find_project(str(tmp_path)), "k")
    return b, PolicyModule(b.wasm, HostOptions(cache_dir=None, deadline=30.0)).instantiate()


@pytest.mark.parametrize("chunk", [routed_aggregator.CHUNK, 1])  # 1: a rule per package, joined in order
@pytest.mark.parametrize("command", ["x", "y x", "h", "ls", "git commit --no-verify", "cat secrets/k"])
def test_same_decisions_as_the_walking_aggregator(tmp_path: Path, command: str, chunk: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from cupcake_py.engine.synthesis import parse_decision_set

    monkeypatch.setattr(routed_aggregator, "CHUNK", chunk)
    b, inst = _instance(tmp_path, monkeypatch=monkeypatch)
    assert ROUTED_ENTRYPOINT in inst.entrypoints
    routed = lookup(b.routing, "PreToolUse", "Bash")
    assert "cupcake.policies.z.my-pkg" in routed and "cupcake.policies.ed" not in routed
    inp = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}, "cwd": "/w",
           "signals": {}, "builtin_config": b.builtin_config, ROUTED_INPUT: routed_input(b.index.positions, routed)}
    walked = json.loads(inst.eval_raw(bundles.ENTRYPOINT, input_json=jsonio.dumps(inp)))[0]["result"]
    fast = json.loads(inst.eval_raw(ROUTED_ENTRYPOINT, input_json=jsonio.dumps(inp)))[0]["result"]
    want = {k: [d for d in v if d["policy"] in routed] for k, v in walked.items()}
    assert fast == want
    assert parse_decision_set(fast, set(routed)) == parse_decision_set(walked, set(routed))


def test_packages_not_routed_are_not_evaluated(tmp_path: Path) -> None:
    trap = policy("trap", 'deny contains {"rule_id": "T", "reason": "t"} if {\n'
                          '  r := numbers.range(1, 100000000)\n  count(r) > 0\n}\n', tools='"Read"')
    b, inst = _instance(tmp_path, {"trap": trap})
    assert list(inst.entrypoints) == [ROUTED_ENTRYPOINT]  # the walking aggregator is not planned
    routed = lookup(b.routing, "PreToolUse", "Bash")
    inp = {"tool_name": "Bash", "tool_input": {"command": "x"}, "signals": {}, "builtin_config": b.builtin_config,
           ROUTED_INPUT: routed_input(b.index.positions, routed)}
    got = json.loads(inst.eval_raw(ROUTED_ENTRYPOINT, input_json=jsonio.dumps(inp)))[0]["result"]
    assert {d["decision"]["rule_id"] for d in got["denials"]} >= {"A", "AB"}


def test_custom_aggregator_is_kept(tmp_path: Path) -> None:
    make_config(tmp_path / ".cupcake", {"a": POLICIES["a"]})
    system = tmp_path / ".cupcake/system"
    system.mkdir()
    for f in (Path(bundles.shipped_policies_path()) / "system").glob("*.rego"):  # an own copy of the system dir
        (system / f.name).write_text(f.read_text())
    b = bundles.build(find_project(str(tmp_path)), "k")
    inst = PolicyModule(b.wasm, HostOptions(cache_dir=None)).instantiate()
    assert ROUTED_ENTRYPOINT not in inst.entrypoints and bundles.ENTRYPOINT in inst.entrypoints


def test_routed_input_cannot_be_forged_by_the_event(tmp_path: Path) -> None:
    """An event field named like the engine's key is overwritten by the engine's routed set."""
    from cupcake_py.engine.evaluator import Evaluation
    from cupcake_py.engine.observe import Trace
    from cupcake_py.engine.options import EvalOptions

    make_config(tmp_path / ".cupcake", {"a": POLICIES["a"], "edit": POLICIES["edit"]})
    ev = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(tmp_path), "tool": "bash",
          "args": {"command": "ls"}, ROUTED_INPUT: {"cupcake.policies.ed": True}}
    trace = Trace()
    opts = EvalOptions(policy_dir=str(tmp_path), no_global=True, no_cache=True, debug_files=True)
    from cupcake_py.harness import get

    final = Evaluation(opts, trace, get("opencode")).run(json.dumps(ev).encode())
    assert final.kind == "allow"
    got = trace.notes["project policy input"][ROUTED_INPUT]
    routed = trace.phases[-1]["routed_policies"]
    assert "cupcake.policies.a" in routed and "cupcake.policies.ed" not in routed
    cfg = find_project(str(tmp_path))
    assert cfg is not None
    order = package_order(bundles.build(cfg, "k").policies)
    assert list(got) == [name in routed for name in order]


def test_routed_input_marks_positions_in_package_order() -> None:
    packages: dict[str, dict[str, object]] = {"cupcake.policies.b": {}, "cupcake.policies.a": {},
                                              "cupcake.policies.c": {}}
    assert package_order(packages) == ["cupcake.policies.a", "cupcake.policies.b", "cupcake.policies.c"]
    positions = bundles.Bundle("k", "project", policies=packages).index.positions
    assert routed_input(positions, ["cupcake.policies.c", "cupcake.policies.a"]) == [True, False, True]
    assert routed_input(positions, []) == [False, False, False]
    with pytest.raises(KeyError):
        routed_input(positions, ["cupcake.policies.zz"])
