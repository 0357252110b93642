"""(issue 16) `cupcake test` vs regorus on a generated corpus (benches/test_corpus.py: a shared
library, N policy files, M test files, one data.json), each as a new process: regorus (python
bindings: load every file, evaluate every `test_*` rule; benches/measures/regorus_tests.py)
against `cupcake test` with its build cached (a rerun over unchanged sources: no
parse/compile, native code from the host cache), after editing one tested policy (the
edit-and-rerun loop: everything parsed and compiled, the chunks that do not depend on the
edited file reused, authoring/testing/parts.py) and with nothing cached (a fresh cache dir:
parse, compile, plan, WASM, native compile). Plus the build of the whole ≥ 1,000-file policy set
(`cupcake build` with one entrypoint per policy). Rounds alternate the variants; wall and CPU
seconds are reported; both engines must pass every test first.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from measures.common import REPO, Context, Unavailable, alternate, goal, process, product_import, summary

HERE = Path(__file__).resolve().parent


def _corpus(ctx: Context) -> tuple[Path, dict[str, int]]:
    sys.path.insert(0, str(REPO / "benches"))
    from test_corpus import generate

    out = ctx.work / "test-corpus"
    sizes = ctx.pick({"policies": 60, "tested": 20, "tests_per_file": 2},
                     {"policies": 1150, "tested": 600, "tests_per_file": 3})
    return out, generate(out, **sizes)


def _phases(cmd: list[str], env: dict[str, str]) -> str:
    proc = subprocess.run([*cmd, "-v"], capture_output=True, text=True, env=env, timeout=600)
    line = next((ln for ln in proc.stderr.splitlines() if ln.startswith("cupcake test:")), "")
    return line.removeprefix("cupcake test: ").split(", ", 3)[-1]  # build origin, processes; phases


def run(ctx: Context) -> dict[str, Any]:
    product_import("regorus (pip gordon-to-regorus, in the dev extra)", lambda: __import__("regorus"))
    corpus, counts = _corpus(ctx)
    cupcake = [ctx.python, "-m", "cupcake_py"]
    test_cmd = [*cupcake, "test", str(corpus), "--format", "json"]
    warm_env = {**ctx.env, "XDG_CACHE_HOME": str(ctx.work / "test-cache")}
    regorus = [ctx.python, str(HERE / "regorus_tests.py"), str(corpus)]
    first = subprocess.run(test_cmd, capture_output=True, env=warm_env, timeout=900)
    if first.returncode != 0:
        raise Unavailable(f"cupcake test does not pass the corpus: {first.stdout[-300:]!r} {first.stderr[-300:]!r}")
    check = subprocess.run(regorus, capture_output=True, text=True, timeout=600)
    if check.returncode != 0:
        raise Unavailable(f"regorus does not pass the corpus: {check.stdout[-300:]} {check.stderr[-300:]}")
    entrypoints = [a for i in range(counts["policy_files"] - 1) for a in ("-e", f"corpus/p{i:04d}/deny")]
    build_cmd = [*cupcake, "build", *entrypoints, "-o", str(ctx.work / "corpus.wasm"), str(corpus / "corpus")]

    edit_corpus = ctx.work / "test-corpus-edit"
    shutil.rmtree(edit_corpus, ignore_errors=True)
    shutil.copytree(corpus, edit_corpus)
    edit_env = {**ctx.env, "XDG_CACHE_HOME": str(ctx.work / "edit-cache")}
    edit_cmd = [*cupcake, "test", str(edit_corpus), "--format", "json"]
    edited = edit_corpus / "corpus" / f"p{(counts['policy_files'] - 1) // 2:04d}.rego"
    subprocess.run(edit_cmd, capture_output=True, env=edit_env, timeout=900)  # the run before the edits
    edits = iter(range(1, 1_000_000))

    def edit_one() -> None:
        with edited.open("a") as f:  # a new comment each time: the whole-build key never matches
            f.write(f"# edit {next(edits)}\n")
        process(edit_cmd, env=edit_env)()

    def cold() -> None:
        d = tempfile.mkdtemp(dir=ctx.work)
        try:
            process(test_cmd, env={**ctx.env, "XDG_CACHE_HOME": d})()
        finally:
            shutil.rmtree(d, ignore_errors=True)

    variants = {"regorus (load + run the tests)": process(regorus),
                "cupcake test, build cached": process(test_cmd, env=warm_env),
                "cupcake test, one policy edited": edit_one,
                "cupcake test, nothing cached": cold,
                f"cupcake build, {counts['policy_files']} policy files": process(build_cmd, env=warm_env)}
    cpu: dict[str, list[float]] = {}
    samples = alternate(variants, rounds=ctx.pick(1, 3), warmup=0, budget_s=ctx.pick(30, 240), min_rounds=1, cpu=cpu)
    wall = {k: summary(v, "s") for k, v in samples.items()}
    cpus = {k: summary(v, "s") for k, v in cpu.items()}
    with edited.open("a") as f:
        f.write("# edit for the phases\n")
    phases = {"cached": _phases(test_cmd, warm_env), "one policy edited": _phases(edit_cmd, edit_env),
              "nothing cached": _phases(test_cmd, {**ctx.env, "XDG_CACHE_HOME": str(ctx.work / "fresh")})}
    out = {"measured_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "corpus": counts,
           "variants": wall, "cpu": cpus, "phases": phases}
    return {**out, **verdict(out)}


def verdict(m: dict[str, Any]) -> dict[str, Any]:
    """Goals and headline from the medians: CPU seconds decide (wall time on this shared machine
    swings with the other jobs); wall seconds are shown next to them."""
    counts, names = m["corpus"], list(m["variants"])
    cpu = [m["cpu"][k]["median"] for k in names]
    wall = [m["variants"][k]["median"] for k in names]
    (r, warm, edit, cold, build), (rw, warmw, editw, coldw, buildw) = cpu, wall
    files = counts["policy_files"]
    return {
        "goals": [goal(16, f"cupcake test ≤ regorus on {counts['tests']} tests / {files} files (build cached; "
                           "CPU s, wall s)", f"{warm:.2f} vs {r:.2f} CPU s ({warm / r:.2f}×); wall {warmw:.2f} vs "
                                            f"{rw:.2f} s", warm <= r),
                  goal(16, "cupcake test ≤ regorus, one policy edited (rerun; CPU s, wall s)",
                       f"{edit:.2f} vs {r:.2f} CPU s ({edit / r:.2f}×); wall {editw:.2f} vs {rw:.2f} s", edit <= r),
                  goal(16, "cupcake test ≤ regorus, nothing cached (first run; CPU s, wall s)",
                       f"{cold:.2f} vs {r:.2f} CPU s ({cold / r:.2f}×); wall {coldw:.2f} vs {rw:.2f} s", cold <= r),
                  goal(16, "build of a ≥ 1,000-file policy set (reported)",
                       f"{build:.2f} CPU s ({buildw:.2f} s wall) for {files} files", None)],
        "headline": (f"{counts['tests']} tests over {files} policy files, median CPU seconds: cupcake test {warm:.2f} "
                     f"(build cached) / {edit:.2f} (one policy edited) / {cold:.2f} (nothing cached) vs regorus {r:.2f}; building the {files}-file "
                     f"set {build:.2f}"),
    }
