"""(2) Measure 1 with signals: the project is a git repository (one commit, one modified file)
and one more policy requires the git branch and status. Two flavours: rulebook shell signals
(`git rev-parse --abbrev-ref HEAD`, `git status --porcelain`, run by the engine as `sh -c`
processes) and the engine's in-process `git.branch` / `git.is_dirty` signals when the engine
provides them.
"""

from __future__ import annotations

from typing import Any

from measures import cold_eval, projects
from measures.common import Context, Unavailable, goal, process


def native_git_available() -> str | None:
    """None when the engine provides git.* signals in-process, else why not."""
    try:
        from cupcake_py.engine import native_signals
    except ImportError as e:
        return f"cupcake_py.engine.native_signals cannot be imported: {e}"
    if not native_signals.provides("git.branch"):
        return "the engine registers no provider for git.* (cupcake_py.engine.native_signals.PROVIDERS)"
    return None


LABELS = {"native": "cupcake eval + native git.* signals", "shell": "cupcake eval + shell git signals"}


def run(ctx: Context) -> dict[str, Any]:
    not_available: dict[str, str] = {}
    setups: dict[str, projects.Setup] = {}
    native_reason = native_git_available()
    flavours = ["shell"] if native_reason else ["native", "shell"]
    if native_reason:
        not_available[LABELS["native"]] = native_reason
    for flavour in flavours[: ctx.pick(1, 2)]:  # --quick: the engine's own flavour only
        try:
            setups[flavour] = projects.typical(ctx, cold_eval.eval_cmd(), n=10, signals=flavour, git=True)
        except Unavailable as e:
            not_available[LABELS[flavour]] = str(e)
    if not setups:
        raise Unavailable("; ".join(f"{k}: {v}" for k, v in not_available.items()))
    main, *others = setups
    extra = {LABELS[f]: process(cold_eval.eval_cmd(), setups[f].stdin, setups[f].project, setups[f].env)
             for f in others}
    out = cold_eval.compare(ctx, setups[main], LABELS[main], extra)
    if not_available:
        out["not_available"] = not_available
    r = out["ratios"][LABELS[main]]["vs_import_wasmtime"]
    out["goals"] = [goal(6, f"cold eval with git signals / import wasmtime ≤ {cold_eval.GOAL}× (the issue-6 goal, "
                         "applied here too)", f"{r:.2f}× ({main} signals)", r <= cold_eval.GOAL)]
    out["headline"] = (f"with {main} git signals {out['variants'][LABELS[main]]['median']:.0f} ms median = {r:.2f}× "
                       "import wasmtime")
    return out
