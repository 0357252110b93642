"""A project of many one-rule policies (issue 29): the bundle builds, wasmtime loads it, no generated
function grows with the number of policies (the routed aggregator lists CHUNK packages per rule), the
build is deterministic, and every policy decides, routed or not.

2,000 policies here (~3 s CPU on an idle 2-core machine; timing is never asserted);
benches/build_many_policies.py measures 100 / 1,000 / 10,000 (time, peak RSS)."""

from __future__ import annotations

import gc
import importlib.util
import json
import types
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.core import jsonio
from cupcake_py.engine import bundle as bundles
from cupcake_py.engine import routed_aggregator
from cupcake_py.engine.project import ConfigDir
from cupcake_py.engine.routed_aggregator import ROUTED_ENTRYPOINT, ROUTED_INPUT, routed_input
from cupcake_py.engine.routing import lookup
from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.wasm import codegen
from cupcake_py.wasm.errors import CodegenError
from cupcake_py.wasm.module import decode

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("build_many_policies", REPO / "benches/build_many_policies.py")
assert _spec is not None and _spec.loader is not None
_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_bench)

N = 2000


def _project(root: Path, n: int) -> ConfigDir:
    d = root / ".cupcake" / "policies" / "opencode"
    d.mkdir(parents=True)
    for i in range(n):
        (d / f"p{i}.rego").write_text(_bench.POLICY.format(i=i))
    return ConfigDir("project", str(root / ".cupcake"), str(root), "opencode")


def _denials(inst: Any, b: bundles.Bundle, command: str, routed: list[str]) -> list[Any]:
    inp = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}, "cwd": "/w",
           "signals": {}, "builtin_config": b.builtin_config, ROUTED_INPUT: routed_input(b.index.positions, routed)}
    result = json.loads(inst.eval_raw(ROUTED_ENTRYPOINT, input_json=jsonio.dumps(inp)))[0]["result"]
    return result["denials"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[bundles.Bundle, Any]:
    b = bundles.build(_project(tmp_path_factory.mktemp("many"), N), "k")
    return b, PolicyModule(b.wasm, HostOptions(cache_dir=None, deadline=60.0)).instantiate()


def test_every_policy_of_a_large_project_decides(large: tuple[bundles.Bundle, Any]) -> None:
    b, inst = large
    routed = lookup(b.routing, "PreToolUse", "Bash")
    assert len([p for p in routed if p.startswith("cupcake.policies.opencode.")]) == N  # + the shipped guardrails
    chunk = routed_aggregator.CHUNK
    for i in (0, chunk - 1, chunk, 1234, N - 1):  # both sides of a chunk boundary, the last chunk
        assert _denials(inst, b, f"cmd{i}", routed) == [
            {"policy": f"cupcake.policies.opencode.p{i}",
             "decision": {"rule_id": f"R{i}", "reason": f"no cmd{i}", "severity": "HIGH"}}]
    assert _denials(inst, b, "ls", routed) == []
    # a package that is not routed is not evaluated, whatever chunk it is in
    assert _denials(inst, b, "cmd1234", [p for p in routed if not p.endswith(".p1234")]) == []


def test_no_generated_function_grows_with_the_policy_count(large: tuple[bundles.Bundle, Any]) -> None:
    b, _ = large
    codes = decode(b.wasm).codes
    most_locals = max(sum(n for n, _ in c.locals) for c in codes)
    largest = max(len(c.body) for c in codes)
    # one rule over all 2,000 packages was a single function of ~360 KB and ~18,000 locals
    assert most_locals < 2_000 and largest < 32 * 1024, (most_locals, largest)


def test_the_chunked_aggregator_is_deterministic_and_keeps_the_order(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routed_aggregator, "CHUNK", 3)  # 10 packages: rules of 3, 3, 3 and 1
    cfg = _project(tmp_path, 10)
    for i in range(10):  # each policy also denies the command of every policy: all of them answer
        with open(tmp_path / f".cupcake/policies/opencode/p{i}.rego", "a") as f:
            f.write(f'deny contains {{"rule_id": "ALL{i}", "reason": "all"}} if input.tool_input.command == "all"\n')
    first, second = bundles.build(cfg, "k"), bundles.build(cfg, "k")
    assert first.wasm == second.wasm
    inst = PolicyModule(first.wasm, HostOptions(cache_dir=None)).instantiate()
    routed = lookup(first.routing, "PreToolUse", "Bash")
    got = [d["policy"] for d in _denials(inst, first, "all", routed)]
    assert len(routed) > 10 and got == sorted(f"cupcake.policies.opencode.p{i}" for i in range(10))  # package order
    assert _denials(inst, first, "cmd9", routed)[0]["decision"]["rule_id"] == "R9"


def test_a_function_past_wasmtime_locals_limit_is_a_codegen_error() -> None:
    fn = codegen._Fn(0)
    fn.next = codegen.MAX_LOCALS + 1
    with pytest.raises(CodegenError, match="50,000"):
        fn.finish("g0.data.p.r", True)


def test_a_build_leaves_no_compiler_objects_to_the_cyclic_collector(tmp_path: Path) -> None:
    # the build pauses the collector: the AST, compiled form, planner and IR must be freed by
    # reference counting (a closure naming itself held all of them until the end of the build)
    cfg = _project(tmp_path, 20)
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        bundles.build(cfg, "k")
        gc.collect()
        left = {o.__module__ if isinstance(o, types.FunctionType) else type(o).__module__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    compiler = ("cupcake_py.rego", "cupcake_py.plan", "cupcake_py.ir", "cupcake_py.wasm", "cupcake_py.engine")
    assert sorted(m for m in left if m and m.startswith(compiler)) == []
