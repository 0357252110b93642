"""The same event gets the same answer on an idle and on a loaded machine (issue 28).

The demo's events of both harnesses (`"demo": true` in harness/<name>/examples/cases) go through the
real `cupcake eval` process twice: once idle, once with one CPU-bound busy loop per CPU plus two
running beside them. Every answer (the whole response, exit status included) must be the same both
times and the one its case file expects. The shell analysis is bounded by work, not time, so load
can only make an evaluation slower, never change what it answers (the one wall-clock limit left is
the evaluation deadline, which the examples set to 60 s and which fails closed).

`make test-load` (CUPCAKE_LOAD_ALL=1) runs every example case of both harnesses the same way
(several minutes); the default selection stays small enough for `make test`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cupcake_py.harness import examples
from cupcake_py.harness.examples import Case, Outcome, cpu_load, default_load, load_cases, run_cases

ALL = os.environ.get("CUPCAKE_LOAD_ALL") == "1"
CASES = [c for h in ("opencode", "claude") for c in load_cases(None, h) if ALL or (c.demo and c.project == "project")]


def _ids(c: Case) -> str:
    return f"{c.harness}-{c.name}"


def _comparable(out: Outcome, root: Path) -> str:
    """The response and exit status with this run's project path replaced (the runs use two roots)."""
    text = json.dumps([out.response, out.exit], sort_keys=True)
    return text.replace(str((root / "work" / out.case.name).resolve()), "$PROJECT")


def _run_all(root: Path, config: Path, cache: Path) -> dict[str, tuple[Outcome, str]]:
    """Every selected case, each harness below its own root (case names repeat across harnesses)."""
    out = {}
    for harness in ("opencode", "claude"):
        where = root / harness
        for o in run_cases([c for c in CASES if c.harness == harness], where, 2, config_root=config, cache=cache):
            out[_ids(o.case)] = (o, _comparable(o, where))
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, tuple[Outcome, str]], dict[str, tuple[Outcome, str]]]:
    cache = tmp_path_factory.mktemp("load-cache")
    config = tmp_path_factory.mktemp("load-config")
    idle = _run_all(tmp_path_factory.mktemp("idle"), config, cache)
    token = examples.RUN
    examples.RUN = token + "b"  # sessions of the second run are new ones (a halt of the first must not carry over)
    try:
        with cpu_load(default_load()) as pids:
            assert len(pids) == default_load()
            busy = _run_all(tmp_path_factory.mktemp("busy"), config, cache)
    finally:
        examples.RUN = token
    return idle, busy


def test_selection_covers_both_harnesses_and_every_answer() -> None:
    assert {c.harness for c in CASES} == {"opencode", "claude"}
    assert len(CASES) >= 30
    assert {"allow", "deny", "ask"} <= {c.expect.get("decision") for c in CASES if c.harness == "opencode"}


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_same_answer_idle_and_under_load(
        case: Case, runs: tuple[dict[str, tuple[Outcome, str]], dict[str, tuple[Outcome, str]]]) -> None:
    idle, busy = runs
    (quiet, quiet_text), (loaded, loaded_text) = idle[_ids(case)], busy[_ids(case)]
    assert quiet.ok, f"idle: {quiet.response} exit {quiet.exit}, expected {quiet.expected}: {quiet.stderr}"
    assert loaded_text == quiet_text, f"under load: {loaded.response} (idle: {quiet.response}) {loaded.stderr}"
    assert loaded.ok, f"under load: {loaded.response}, expected {loaded.expected}"
