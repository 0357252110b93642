"""(issue 32) `cupcake test` start-up and whole-run CPU against regorus, on corpora shaped like
real libraries.

1. Start-up of `cupcake test` on a one-policy directory, broken down against the floor: the
   interpreter (`python -c pass`), loading what a run needs (the host alone for a cached build;
   the compiler — front end, planner, code generator — plus the host for a first run), the lean
   command path's own modules (`cupcake test PATHS` runs without typer: cupcake_py/app/entry.py,
   authoring/testing/command.py) and, for scale, the typer command line (`cupcake --version`:
   typer, which imports pydantic; `cupcake test --help` still pays it). Goal: a cached run
   ≤ 2× `python -c pass` + host load; a first run ≤ 2× `python -c pass` + compiler and host load.
   The modules a cached run imports are those a real run loaded (probed once, `LEAN` no longer
   a hand list), and where one cached process's CPU goes (measures/cached_phases.py: python
   start, ctypes + the dlopen of libwasmtime, the imports, files, cache key and lookup, the
   custom builtin check, the native-code load, instantiate, the tests, the report, the rest,
   and the exit as the difference to the whole process) on a template of the admission library.
2. An admission-control library in Rego v0 (benches/admission_corpus.py: many template
   directories, shared helpers imported by every template, one large schema literal), tested as
   its CI does: one `cupcake test --v0-compatible lib/ <template>/` process per template, first
   run (a fresh cache for every process; and a cache that is empty when the whole run starts, as
   a CI job without a restored cache) and cached, against one regorus v0 process per template
   (measures/regorus_v0_tests.py). Whole-run CPU is the sum over the template processes.
3. Where a first run's CPU goes, stage by stage (measures/first_run_stages.py: fresh processes
   with an empty cache, the runner's steps one after the other), for the one-policy directory
   and for one plain template of the admission library.
Each variant is a new process; CPU = user + system seconds of the children (steadier than wall
time on this shared machine). Both engines must pass every test first.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from measures import first_run_stages
from measures.common import REPO, Context, alternate, cupcake_cmd, goal, process, summary

HERE = Path(__file__).resolve().parent
ONE_POLICY = {
    "p.rego": "package p\n\nimport rego.v1\n\nallow if input.user == \"admin\"\n",
    "p_test.rego": "package p\n\nimport rego.v1\n\ntest_allow if allow with input as {\"user\": \"admin\"}\n"
                   "\ntest_deny if not allow with input as {\"user\": \"bob\"}\n",
}
COMPILER = ("cupcake_py.rego.parser, cupcake_py.rego.compile.compiler, cupcake_py.plan.planner, "
            "cupcake_py.wasm.codegen, cupcake_py.host.policy")
HOST = "host load (python -c 'import cupcake_py.host.policy')"
LEAN = "what a cached cupcake test imports (no run)"
PROBE = """
import json, os, sys
out, real_exit = sys.argv[1], os._exit
sys.argv = ["cupcake", "test", *sys.argv[2:]]


def report(code):
    names = [m for m in sys.modules if m.startswith("cupcake_py")]
    with open(out, "w") as f:
        json.dump(names, f)
    real_exit(code)


os._exit = report
from cupcake_py.app.entry import main
main()
"""


def _cached_modules(py: str, args: list[str], cwd: Path, env: dict[str, str], out: Path) -> list[str]:
    """The cupcake_py modules a cached `cupcake test ARGS` loads (in import order); the run is checked."""
    process([py, "-c", PROBE, str(out.with_suffix(".fill")), *args], cwd=cwd, env=env)()  # (fills the cache)
    subprocess.run([py, "-c", PROBE, str(out), *args], cwd=cwd, env=env, check=True, capture_output=True,
                   timeout=300)
    names: list[str] = json.loads(out.read_text())
    return names


def _fresh(cmd: list[str], cwd: Path, env: dict[str, str], cache: Path) -> Any:
    """A variant that runs `cmd` with an emptied cache directory (a first run)."""
    run = process(cmd, cwd=cwd, env={**env, "XDG_CACHE_HOME": str(cache)})

    def call() -> None:
        shutil.rmtree(cache, ignore_errors=True)
        run()

    return call


def _startup(ctx: Context) -> dict[str, Any]:
    one = ctx.work / "one-policy"
    one.mkdir(parents=True, exist_ok=True)
    for name, text in ONE_POLICY.items():
        (one / name).write_text(text)
    py, cup = ctx.python, cupcake_cmd()
    env = {**ctx.env, "XDG_CACHE_HOME": str(ctx.work / "startup-cache")}
    lean = ", ".join(_cached_modules(py, ["."], one, env, ctx.work / "startup-modules.json"))
    variants = {
        "python -c pass": process([py, "-c", "pass"], env=env),
        HOST: process([py, "-c", "import cupcake_py.host.policy"],
                                                                        env=env),
        "compiler + host load": process([py, "-c", f"import {COMPILER}"], env=env),
        LEAN: process([py, "-c", f"import {lean}"], env=env),
        "cupcake --version (command line)": process([*cup, "--version"], env=env),
        "cupcake test, cached build": process([*cup, "test", "."], cwd=one, env=env),
        "cupcake test, first run": _fresh([*cup, "test", "."], one, env, ctx.work / "startup-fresh"),
    }
    process([*cup, "test", "."], cwd=one, env=env)()  # fills the cache and checks the tests pass
    cpu: dict[str, list[float]] = {}
    wall = alternate(variants, rounds=ctx.pick(5, 10), warmup=1, budget_s=ctx.pick(20, 60), cpu=cpu)
    return {"variants": {k: summary(v) for k, v in wall.items()}, "cpu": {k: summary(v) for k, v in cpu.items()},
            "stages": _stages(ctx, ["."], one, v0=False)}


WHOLE, FLOOR = "the whole `cupcake test` process, first run", "the interpreter (`python -c pass`)"


def _stages(ctx: Context, paths: list[str], cwd: Path, v0: bool) -> dict[str, Any]:
    """CPU ms of each stage of a first run (measures/first_run_stages.py), and side by side the
    whole first-run process and the interpreter alone: what no stage shows (writing the build and
    native-code caches, the report, the exit) is the whole minus the interpreter and the stages."""
    rounds = ctx.pick(3, 7)
    got = first_run_stages.measure(ctx.python, paths, cwd, ctx.env, v0, rounds=rounds)
    cmd = [*cupcake_cmd(), "test", *(["--v0-compatible"] if v0 else []), *paths]
    cpu: dict[str, list[float]] = {}
    alternate({WHOLE: _fresh(cmd, cwd, ctx.env, ctx.work / "stages-whole"),
               FLOOR: process([ctx.python, "-c", "pass"], env=ctx.env)}, rounds=rounds, warmup=1, cpu=cpu)
    return {**{k: summary([x / 1000 for x in v]) for k, v in got.items()},
            **{k: summary(v) for k, v in cpu.items()}}


def _library(ctx: Context) -> dict[str, Any]:
    sys.path.insert(0, str(REPO / "benches"))
    from admission_corpus import generate, template_dirs

    templates = ctx.pick(6, 12)
    ours, theirs = ctx.work / "admission", ctx.work / "admission-no-deprecated"
    counts = generate(ours, templates)
    generate(theirs, templates, deprecated=False)  # regorus has none of OPA's deprecated builtins
    cup, env = cupcake_cmd(), ctx.env
    cache = ctx.work / "admission-cache"
    every = template_dirs(ours)
    schema = [d for d in every if "json.match_schema" in (d / "src.rego").read_text()]
    plain = [d for d in every if d not in schema]

    def each(make: Any, dirs: list[Path]) -> Any:
        calls = [make(d) for d in dirs]

        def run_all() -> None:
            for c in calls:
                c()
        return run_all

    def cupcake_cached(d: Path) -> Any:
        return process([*cup, "test", "--v0-compatible", "lib", str(d.relative_to(ours))], cwd=ours,
                       env={**env, "XDG_CACHE_HOME": str(cache)})

    def cupcake_first(d: Path) -> Any:
        return _fresh([*cup, "test", "--v0-compatible", "lib", str(d.relative_to(ours))], ours, env,
                      ctx.work / "admission-fresh")

    def cold_whole_run(dirs: list[Path]) -> Any:
        """Every template once with a cache that is empty when the run starts (a CI job)."""
        cold = ctx.work / "admission-cold"
        calls = [process([*cup, "test", "--v0-compatible", "lib", str(d.relative_to(ours))], cwd=ours,
                         env={**env, "XDG_CACHE_HOME": str(cold)}) for d in dirs]

        def run_all() -> None:
            shutil.rmtree(cold, ignore_errors=True)
            for c in calls:
                c()
        return run_all

    def regorus(d: Path) -> Any:
        rel = d.relative_to(ours)
        return process([ctx.python, str(HERE / "regorus_v0_tests.py"), "lib", str(rel)], cwd=theirs, env=env)

    variants = {}
    for label, dirs in ((f"{len(plain)} templates", plain), ("schema-literal template", schema)):
        variants[f"regorus v0, {label}"] = each(regorus, dirs)
        variants[f"cupcake cached, {label}"] = each(cupcake_cached, dirs)
        variants[f"cupcake first run, {label}"] = each(cupcake_first, dirs)
        if len(dirs) > 1:
            variants[f"cupcake first run, cache cold at the start, {label}"] = cold_whole_run(dirs)
        variants[f"cupcake cached, {label}"]()  # fills the cache; every variant checks exit 0
        variants[f"regorus v0, {label}"]()
    cpu: dict[str, list[float]] = {}
    wall = alternate(variants, rounds=ctx.pick(2, 3), warmup=0, budget_s=ctx.pick(30, 150), min_rounds=2, cpu=cpu)
    phases = subprocess.run([*cup, "test", "--v0-compatible", "-v", "lib", str(schema[0].relative_to(ours))],
                            cwd=ours, env={**env, "XDG_CACHE_HOME": str(ctx.work / "phase-cache")},
                            capture_output=True, text=True, timeout=600).stderr
    breakdown = _breakdown(ctx, ours, plain[0], cache, ctx.pick(5, 15))
    stages = _stages(ctx, ["lib", str(plain[0].relative_to(ours))], ours, v0=True)
    return {"templates": counts["templates"], "tests": counts["tests"], "plain": f"{len(plain)} templates",
            "stages": stages, "stages_template": str(plain[0].relative_to(ours)),
            "variants": {k: summary(v, "s") for k, v in wall.items()},
            "cpu": {k: summary(v, "s") for k, v in cpu.items()},
            "phases_first_run_schema_template": next((ln for ln in phases.splitlines()
                                                      if ln.startswith("cupcake test:")), ""),
            "cached_breakdown": breakdown}


def _breakdown(ctx: Context, root: Path, template: Path, cache: Path, rounds: int) -> dict[str, Any]:
    """Median CPU ms per phase of one cached `cupcake test --v0-compatible lib <template>` process
    (measures/cached_phases.py), next to the whole process measured from outside."""
    import resource
    import statistics

    env = {**ctx.env, "XDG_CACHE_HOME": str(cache)}
    args = ["--v0-compatible", "lib", str(template.relative_to(root))]
    modules = ctx.work / "breakdown-modules.txt"
    modules.write_text("\n".join(_cached_modules(ctx.python, args, root, env, ctx.work / "breakdown-probe.json")))
    samples: dict[str, list[float]] = {}
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([ctx.python, str(HERE / "cached_phases.py"), str(modules), "--", *args], cwd=root,
                             env=env, check=True, capture_output=True, text=True, timeout=300).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        got = json.loads(out)
        whole = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
        got["exit (whole process - in process)"] = max(0.0, whole - got["total in process"])
        got["whole process"] = whole
        for k, v in got.items():
            samples.setdefault(k, []).append(v)
    return {"template": str(template.relative_to(root)), "rounds": rounds,
            "ms": {k: round(statistics.median(v), 2) for k, v in samples.items()}}


def run(ctx: Context) -> dict[str, Any]:
    s = _startup(ctx)
    lib = _library(ctx)
    c = {k: v["median"] for k, v in s["cpu"].items()}
    floor = c["python -c pass"]
    cached_goal = 2 * floor + c[HOST]
    first_goal = 2 * floor + c["compiler + host load"]
    cached, first = c["cupcake test, cached build"], c["cupcake test, first run"]
    lc = {k: v["median"] for k, v in lib["cpu"].items()}
    reg, lib_cached, lib_first = (lc[f"{v}, {lib['plain']}"] for v in ("regorus v0", "cupcake cached",
                                                                         "cupcake first run"))
    lib_cold = lc[f"cupcake first run, cache cold at the start, {lib['plain']}"]
    s_reg, s_cached, s_first = (lc[f"{v}, schema-literal template"] for v in ("regorus v0", "cupcake cached",
                                                                               "cupcake first run"))
    goals = [
        goal(32, "cupcake test start-up, one-policy dir, cached build ≤ 2× python -c pass + host load (CPU ms)",
             f"{cached:.0f} vs {cached_goal:.0f} ms ({cached / cached_goal:.2f}×)", cached <= cached_goal),
        goal(32, "cupcake test start-up, one-policy dir, first run ≤ 2× python -c pass + compiler load (CPU ms)",
             f"{first:.0f} vs {first_goal:.0f} ms ({first / first_goal:.2f}×)", first <= first_goal),
        goal(32, f"v0 admission library ({lib['plain']}, one process each): whole-run CPU ≤ regorus, cached",
             f"{lib_cached:.2f} vs {reg:.2f} CPU s ({lib_cached / reg:.2f}×)", lib_cached <= reg),
        goal(32, f"v0 admission library ({lib['plain']}): whole-run CPU ≤ regorus, first run (every process a fresh cache)",
             f"{lib_first:.2f} vs {reg:.2f} CPU s ({lib_first / reg:.2f}×)", lib_first <= reg),
        goal(32, f"v0 admission library ({lib['plain']}): whole-run CPU ≤ regorus, first run (cache empty at the start)",
             f"{lib_cold:.2f} vs {reg:.2f} CPU s ({lib_cold / reg:.2f}×)", lib_cold <= reg),
        goal(32, "template with a ~170 KB schema literal: CPU ≤ regorus (cached / first run)",
             f"{s_cached:.2f} / {s_first:.2f} vs {s_reg:.2f} CPU s ({s_cached / s_reg:.2f}× / {s_first / s_reg:.2f}×)",
             s_first <= s_reg),
    ]
    lean = c[LEAN]
    headline = (f"cupcake test on a one-policy directory: {cached:.0f} ms CPU cached, {first:.0f} ms first run "
                f"(python -c pass {floor:.0f} ms, host load {c[HOST]:.0f} ms, what a cached run imports "
                f"{lean:.0f} ms, compiler + host {c['compiler + host load']:.0f} ms; typer's command line alone "
                f"{c['cupcake --version (command line)']:.0f} ms, no longer paid by `cupcake test PATHS`); "
                f"v0 admission library, {lib['plain']} (a process each): {lib_cached:.2f} s cached / "
                f"{lib_first:.2f} s first run ({lib_cold:.2f} s with the cache empty only at the start) vs regorus {reg:.2f} s CPU; the schema-literal template "
                f"{s_cached:.2f} / {s_first:.2f} s vs regorus {s_reg:.2f} s")
    import datetime

    measured = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"startup": s, "library": lib, "goals": goals, "headline": headline, "measured_utc": measured}
