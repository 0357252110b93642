"""Every example event of the hook-command agents (Codex CLI, Gemini CLI, Qwen Code, GitHub Copilot CLI,
Factory Droid, Cline, Cursor) in harness/<name>/examples/cases/ through the real `cupcake eval --harness
<name>` process (evaluated concurrently, checked one test per case), and what each case set must cover
(`COVERAGE`, the per-agent differences): at least 40 events, every event the agent sends but those named,
every answer shape (answer_shapes.py, one classifier for all agents) its contract has, bad input and
failures, a destructive command and a subagent call. Every failure says why: on stderr and in the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from cupcake_py.harness import get
from cupcake_py.harness.examples import Case, Outcome, load_cases, run_cases
from tests.e2e_eval.answer_shapes import shape


class Coverage(NamedTuple):
    """What one agent's example set must exercise."""

    shapes: frozenset[str]
    unexercised: frozenset[str]  # events the agent sends that no example has (cupcake hooks none of them)
    failures: int  # examples answered with exit 2 (bad input, failures), at least


COVERAGE = {
    "codex": Coverage(frozenset({"deny", "modify", "block", "stop", "context", "allow", "permission-deny", "fail"}),
                      frozenset({"SubagentStart", "SubagentStop", "PreCompact", "PostCompact"}), 8),
    "gemini": Coverage(frozenset({"halt", "deny", "modify", "stop", "context", "allow", "fail"}),
                       frozenset({"PreCompress"}), 8),
    "qwen": Coverage(frozenset({"deny", "ask", "block", "stop", "context", "allow", "permission-deny", "fail"}),
                     frozenset({"PreCompact", "SubagentStop", "Notification"}), 8),
    "copilot": Coverage(frozenset({"deny", "ask", "modify", "block", "context", "allow", "permission-deny", "fail"}),
                        frozenset({"subagentStop", "notification"}), 6),
    "factory": Coverage(frozenset({"halt", "deny", "modify", "block", "stop", "context", "allow", "fail"}),
                        frozenset({"PreCompact", "SubagentStop"}), 6),
    "cline": Coverage(frozenset({"cancel", "modify", "context", "allow", "fail"}),
                      frozenset({"PreCompact", "TaskCancel", "TaskResume"}), 6),
    "cursor": Coverage(frozenset({"deny", "ask", "modify", "block", "stop", "context", "allow", "fail"}),
                       frozenset({"subagentStop", "beforeTabFileRead", "afterTabFileEdit", "preCompact",
                                  "afterMCPExecution", "afterAgentResponse", "afterAgentThought",
                                  "postToolUseFailure"}), 6),
}
AGENTS = tuple(COVERAGE)
CASES = {a: load_cases(harness=a) for a in AGENTS}
ALL = [c for a in AGENTS for c in CASES[a]]


def _event_of(case: Case) -> str | None:
    """The agent's event name: from the hook's environment where stdin lacks it (Copilot, Cline)."""
    if not isinstance(case.event, dict):
        return None
    return (case.env or {}).get("CUPCAKE_HOOK_EVENT") or str(case.event.get("hook_event_name"))


@pytest.mark.parametrize("agent", AGENTS)
def test_there_are_enough_examples_of_every_kind(agent: str) -> None:
    cases, want = CASES[agent], COVERAGE[agent]
    assert len(cases) >= 40
    events = {_event_of(c) for c in cases}
    sent = set(get(agent).event_map)  # type: ignore[attr-defined]
    assert sent - events <= want.unexercised, sent - events - want.unexercised
    shapes = {shape(c.expect, c.exit) for c in cases}
    assert want.shapes <= shapes, want.shapes - shapes
    assert sum(c.exit == 2 for c in cases) >= want.failures, "bad input and failures"
    assert any(c.name.startswith("bash-rm-rf") for c in cases) and any("subagent" in c.name or "task-" in c.name
                                                                        for c in cases)


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    selected: list[Case] = [item.callspec.params["case"] for item in request.session.items
                            if item.module is request.module and hasattr(item, "callspec")
                            and "case" in item.callspec.params]
    out: dict[str, Outcome] = {}
    for agent in AGENTS:  # one root per agent: project copies are named after the case, names repeat across agents
        mine = [c for c in selected if c.harness == agent]
        if mine:
            root: Path = tmp_path_factory.mktemp(f"{agent}-examples")
            out.update({f"{agent}/{o.case.name}": o for o in run_cases(mine, root, workers=2)})
    return out


@pytest.mark.parametrize("case", ALL, ids=[f"{c.harness}/{c.name}" for c in ALL])
def test_hook_agent_example(case: Case, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[f"{case.harness}/{case.name}"]
    assert "Traceback" not in out.stderr
    assert (out.response, out.exit) == (out.expected, case.exit), out.stderr
    if case.stderr is not None:
        assert case.stderr in out.stderr
    if case.exit == 2:  # every exit 2 says why on stderr (these agents take it as the reason)
        assert out.stderr.strip(), "exit 2 without a reason on stderr"
    if case.exit == 2 and "--strict" not in case.args:  # a failure (not a policy's deny): cupcake's, in the answer too
        assert out.stderr.strip().startswith("cupcake:"), out.stderr
        assert "cupcake:" in json.dumps(out.response)
    assert isinstance(out.response, dict)  # always one JSON object the agent parses
