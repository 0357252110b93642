"""Every plan of the compliance suite compiles (real runtime.wasm) into a module wasmtime
accepts; output is byte-identical across processes with different hash seeds."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import wasmtime

from cupcake_py import ir
from cupcake_py.wasm import compile_policy
from tests.ir.suite import plans

ENGINE = wasmtime.Engine()
REPO = Path(__file__).resolve().parents[2]


def test_every_suite_plan_compiles_and_validates() -> None:
    failures = []
    for note, plan in plans():
        try:
            wasmtime.Module.validate(ENGINE, compile_policy(ir.load(plan)))
        except Exception as e:  # collect all, report together
            failures.append(f"{note}: {e}")
    assert not failures, "\n".join(failures[:20])


_DIGEST_SCRIPT = """
import hashlib
from cupcake_py import ir
from cupcake_py.wasm import compile_policy
from tests.ir.suite import plans
h = hashlib.sha256()
for _, plan in plans()[::20]:
    h.update(compile_policy(ir.load(plan)))
print(h.hexdigest())
"""


def test_deterministic_across_processes_and_hash_seeds() -> None:
    digests = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", _DIGEST_SCRIPT], cwd=REPO, env=env, check=True,
                             capture_output=True, text=True)  # fmt: skip
        digests.add(out.stdout.strip())
    h = hashlib.sha256()
    for _, plan in plans()[::20]:
        h.update(compile_policy(ir.load(plan)))
    digests.add(h.hexdigest())
    assert len(digests) == 1


def test_debug_names_section() -> None:
    from cupcake_py.wasm import leb
    from cupcake_py.wasm.module import KIND_FUNC, decode

    policy = ir.load(plans()[0][1])
    plain, named = compile_policy(policy), compile_policy(policy, debug_names=True)
    wasmtime.Module.validate(ENGINE, named)
    assert decode(plain).customs == []
    m = decode(named)
    (custom,) = m.customs
    r = leb.Reader(custom.payload)
    assert custom.name == "name" and r.byte() == 1
    sub = r.sub(r.u32())
    names = {}
    for _ in range(sub.u32()):
        i = sub.u32()
        names[i] = sub.name()
    exports = {e.name: e.index for e in m.exports if e.kind == KIND_FUNC}
    assert names[exports["eval"]] == "eval"
    assert names[exports["opa_malloc"]] == "opa_malloc"
    assert names[0] == "opa_builtin0"
    assert {f.name for f in policy.funcs} <= set(names.values())
