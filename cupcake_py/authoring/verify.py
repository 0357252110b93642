"""`cupcake verify --harness NAME`: the "safe to install" check of a configuration.

Steps, each reported pass/fail: the rulebook loads; the sandbox it enables can run here
(bubblewrap installed and able to create the floor's sandbox; a rulebook that enables it on a
machine where it cannot run fails this step: its Bash calls would run without the floor); the bundle compiles (the engine's
own build: routing, signals, WASM, timed, never from the cache); the routing map
(event:tool → policies) and the signals the policies require; lint errors; the policy
tests under the configuration directory pass; for every agent whose harness states its capabilities, what
the agent can enforce, with a WARNING where it cannot (subagent calls not hooked, no per-call deny, no shell
rewrite: `agent_lines`). Any failed step makes the exit status 1, so
a configuration whose tests fail is refused. A configuration that passes leaves the bundle
and native-code caches warm (authoring/warm.py): the first `cupcake eval` compiles nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from cupcake_py.core.errors import CupcakeError
from cupcake_py.engine.project import ConfigDir


@dataclass
class Step:
    name: str
    ok: bool
    lines: list[str] = field(default_factory=list)


@dataclass
class Verification:
    config: ConfigDir
    steps: list[Step] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.steps)

    def text(self) -> str:
        out = [f"cupcake verify: {self.config.cupcake_dir} (harness {self.config.harness})"]
        for s in self.steps:
            out.append(f"[{'ok' if s.ok else 'FAIL'}] {s.name}")
            out += [f"    {ln}" for ln in s.lines]
        out.append("safe to install" if self.ok else "NOT safe to install: fix the failed steps above")
        return "\n".join(out) + "\n"


# harness_capabilities key -> (what it means when true, the warning when false)
CAPABILITIES = {
    "can_deny_tool": ("a denied call is refused and the model gets the reason",
                      "WARNING: this agent cannot refuse one call: a deny cancels the whole task"),
    "can_ask": ("`ask` reaches the agent's own approval", "`ask` becomes the fallback (deny unless "
                "CUPCAKE_ASK_FALLBACK=allow)"),
    "can_rewrite_shell": ("a rewritten shell command runs as rewritten (modify, the sandbox floor)",
                          "WARNING: shell commands cannot be rewritten: the sandbox floor does not apply "
                          "(input.harness_capabilities.can_rewrite_shell is false; policies decide)"),
    "subagent_calls_hooked": ("subagents' tool calls go through the same hooks",
                       "WARNING: subagents' tool calls were not seen going through the hooks: a policy cannot "
                       "rely on deciding them"),
}


def agent_lines(harness: str) -> list[str]:
    """What the agent of a hook-command harness can enforce (its `capabilities`), warnings first."""
    from cupcake_py.harness import get

    raw = getattr(get(harness), "capabilities", None)
    caps: dict[str, bool] = dict(raw) if isinstance(raw, dict) else {}
    if not caps:
        return []
    lines = [CAPABILITIES[k][1] for k, v in caps.items() if not v and k in CAPABILITIES]
    lines.sort(key=lambda ln: not ln.startswith("WARNING"))
    return lines + [CAPABILITIES[k][0] for k, v in caps.items() if v and k in CAPABILITIES]


def _step(name: str, fn: Callable[[Step], None], update: Callable[[str], None] = lambda _t: None) -> Step:
    update(name)
    step = Step(name, True)
    try:
        fn(step)
    except CupcakeError as e:
        step.ok = False
        step.lines += str(e).splitlines()
    return step


def verify(cfg: ConfigDir, update: Callable[[str], None] = lambda _t: None) -> Verification:
    """Every step, in order; `update` is told the name of the step that starts (progress display)."""
    from cupcake_py.engine import bundle as B
    from cupcake_py.engine.rulebook import load_rulebook

    v = Verification(cfg)
    built_bundle: list[B.Bundle] = []

    def rulebook(step: Step) -> None:
        rb = load_rulebook(cfg.rulebook)
        state = "found" if cfg.rulebook.is_file() else "missing (defaults)"
        step.lines.append(f"{cfg.rulebook}: {state}; builtins enabled: {', '.join(rb.builtins.enabled()) or 'none'}")

    v.steps.append(_step("rulebook", rulebook, update))

    def sandbox(step: Step) -> None:
        """The kernel floor the rulebook asks for must be able to run here (docs/sandbox.md)."""
        from cupcake_py.authoring.scaffold import sandbox_summary

        lines = sandbox_summary(cfg.rulebook)
        step.ok = not any("UNAVAILABLE" in ln for ln in lines)
        step.lines += [ln.strip() for ln in lines]

    v.steps.append(_step("sandbox", sandbox, update))

    def compile_bundle(step: Step) -> None:
        t0 = time.perf_counter()
        b = B.build(cfg, B.cache_key(cfg))
        dt = time.perf_counter() - t0
        built_bundle.append(b)
        step.lines.append(f"{len(b.policies)} routed policies, {len(b.sources)} source files; WASM {len(b.wasm)} bytes "
                          f"compiled in {dt:.2f}s; host builtins: {', '.join(b.host_builtins) or 'none'}")
        step.lines.append("routing map:")
        if not b.routing:
            step.lines.append("  (empty: no policy is routed, every event is allowed)")
        for key in sorted(b.routing):
            step.lines.append(f"  {key} -> {len(b.routing[key])} {'policy' if len(b.routing[key]) == 1 else 'policies'}")
            step.lines += [f"    - {p}" for p in b.routing[key]]
        wanted = sorted({s for p in b.policies.values() for s in p.get("signals", [])})
        step.lines.append(f"signals required: {', '.join(wanted) or 'none'}; defined: "
                          f"{', '.join(sorted(b.signals)) or 'none'}")

    v.steps.append(_step("compile bundle", compile_bundle, update))
    built = built_bundle[0] if built_bundle else None

    def lint(step: Step) -> None:
        from cupcake_py.authoring.validate import validate_paths
        from cupcake_py.extensions.builtins import declared_for

        with declared_for(B.rulebook_builtins(cfg.cupcake_path)):
            report = validate_paths([cfg.cupcake_dir])
        errors = [f for f in report.findings if f.severity == "error"]
        step.ok = not errors
        step.lines.append(f"{len(report.files)} files: {len(errors)} errors, {report.count('warning')} warnings "
                          "(details: cupcake validate)")
        step.lines += [f"{f.file}:{f.row}:{f.col}: [{f.rule}] {f.message}" for f in errors[:10]]
        from cupcake_py.authoring.scaffold import system_drift

        step.lines += [f"note: {d} (cupcake init --force refreshes it)" for d in system_drift(cfg.cupcake_dir)]

    v.steps.append(_step("lint", lint, update))

    def tests(step: Step) -> None:
        from cupcake_py.authoring.testing.runner import run_tests
        from cupcake_py.extensions.builtins import load

        run = run_tests([cfg.cupcake_dir], builtins=load(B.rulebook_builtins(cfg.cupcake_path)) or None)
        counted = [r for r in run.results if r.status != "skip"]
        step.ok = run.ok
        step.lines.append(f"{run.count('pass')}/{len(counted)} passed" if counted else "no tests (*_test.rego)")
        for r in run.results:
            if r.status in ("fail", "error"):
                where = r.failure.location if r.failure else r.case.location
                step.lines.append(f"{r.status.upper()} {r.case.full_name} at {where}: "
                                  f"{r.failure.source if r.failure else r.message}")

    v.steps.append(_step("policy tests", tests, update))
    if agent_lines(cfg.harness):
        v.steps.append(_step("agent", lambda step: step.lines.extend(agent_lines(cfg.harness)), update))

    def warm_caches(step: Step) -> None:
        from cupcake_py.authoring.warm import warm

        step.lines.append(warm(cfg, built))

    if v.ok:
        v.steps.append(_step("warm cache", warm_caches, update))
    return v
