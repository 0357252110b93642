"""Run the OPA-style Rego unit tests of the shipped builtins (`policies/builtins/*_test.rego`)
through our real pipeline: parse → compile checks → planner → WASM → wasmtime. Each `test_*`
rule is an entrypoint; it passes when it evaluates to `true`.

A test file is compiled with the shipped system helpers (`policies/system/*.rego`) and, when
its name is `<builtin>_test.rego`, with `policies/builtins/<builtin>.rego`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from cupcake_py.host import PolicyModule
from cupcake_py.plan import compile_entrypoints
from cupcake_py.rego import parse_module, read_source
from cupcake_py.wasm import compile_policy

POLICIES = Path(__file__).resolve().parents[2] / "policies"


@dataclass(frozen=True)
class Outcome:
    name: str  # package/rule
    passed: bool
    value: object


def unit_test_files() -> list[Path]:
    return sorted((POLICIES / "builtins").glob("*_test.rego"))


def _sources(test_file: Path) -> list[Path]:
    system = sorted(p for p in (POLICIES / "system").glob("*.rego") if not p.name.endswith("_test.rego"))
    policy = test_file.with_name(test_file.name.removesuffix("_test.rego") + ".rego")
    return [*system, *([policy] if policy.exists() else []), test_file]


def run_file(test_file: Path) -> list[Outcome]:
    modules = [parse_module(read_source(p), str(p)) for p in _sources(test_file)]
    test_module = modules[-1]
    pkg = test_module.package.dotted().replace(".", "/")
    names = sorted({r.head.name for r in test_module.rules if r.head.name.startswith("test_")})
    entrypoints = [f"{pkg}/{n}" for n in names]
    instance = PolicyModule.load(compile_policy(compile_entrypoints(modules, entrypoints))).instantiate()
    out = []
    for ep in entrypoints:
        rows = orjson.loads(instance.eval_raw(ep, input_json=b"{}"))
        value = rows[0].get("result") if rows else None
        out.append(Outcome(ep, value is True, value))
    return out
