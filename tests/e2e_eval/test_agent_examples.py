"""Every Codex CLI, Gemini CLI and Qwen Code example in harness/<agent>/examples/cases/ through the real
`cupcake eval --harness <agent>` process (evaluated concurrently, one test per case), and what each
agent's case set must cover: every event type it sends, every answer shape its contract has, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cupcake_py.harness import get
from cupcake_py.harness.examples import Case, Outcome, load_cases, run_cases

AGENTS = ("codex", "gemini", "qwen")
CASES = {a: load_cases(harness=a) for a in AGENTS}
ALL = [c for a in AGENTS for c in CASES[a]]


def _claude_style_shape(expect: dict[str, object], exit_code: int) -> str:
    specific = expect.get("hookSpecificOutput") or {}
    assert isinstance(specific, dict)
    if exit_code == 2:
        return "fail"
    if "updatedInput" in specific:
        return "modify"
    if "permissionDecision" in specific:
        return str(specific["permissionDecision"])
    if "decision" in specific:
        return "permission-deny"
    if expect.get("decision") == "block":
        return "block"
    if expect.get("continue") is False:
        return "stop"
    return "context" if "additionalContext" in specific else "empty"


def _gemini_shape(expect: dict[str, object], exit_code: int) -> str:
    specific = expect.get("hookSpecificOutput") or {}
    assert isinstance(specific, dict)
    if exit_code == 2:
        return "fail"
    if "tool_input" in specific:
        return "modify"
    if expect.get("continue") is False:
        return "halt" if expect.get("decision") == "deny" else "stop"
    if expect.get("decision") == "deny":
        return "deny"
    return "context" if "additionalContext" in specific else "empty"


SHAPES = {
    "codex": (_claude_style_shape, {"deny", "modify", "block", "stop", "context", "empty", "permission-deny", "fail"}),
    "qwen": (_claude_style_shape, {"deny", "ask", "block", "stop", "context", "empty", "permission-deny", "fail"}),
    "gemini": (_gemini_shape, {"halt", "deny", "modify", "stop", "context", "empty", "fail"}),
}


@pytest.mark.parametrize("agent", AGENTS)
def test_there_are_enough_examples_of_every_kind(agent: str) -> None:
    cases = CASES[agent]
    assert len(cases) >= 40
    sent = set(get(agent).event_map)  # type: ignore[attr-defined]
    events = {c.event["hook_event_name"] for c in cases if isinstance(c.event, dict)}
    # every event cupcake installs a hook for, and the others the agent documents but cupcake does not hook
    untested = sent - events
    assert untested <= {"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "PreCompress", "Notification"}, untested
    shape, wanted = SHAPES[agent]
    assert wanted <= {shape(c.expect, c.exit) for c in cases}
    assert sum(c.exit == 2 for c in cases) >= 8, "bad input and failures"


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    selected: list[Case] = [item.callspec.params["case"] for item in request.session.items
                            if item.module is request.module and hasattr(item, "callspec")
                            and "case" in item.callspec.params]
    root: Path = tmp_path_factory.mktemp("agent-examples")
    out: dict[str, Outcome] = {}
    for agent in AGENTS:  # one work dir per agent: case names repeat across agents
        mine = [c for c in selected if c.harness == agent]
        out.update({f"{agent}/{o.case.name}": o for o in run_cases(mine, root / agent)} if mine else {})
    return out


@pytest.mark.parametrize("case", ALL, ids=[f"{c.harness}/{c.name}" for c in ALL])
def test_agent_example(case: Case, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[f"{case.harness}/{case.name}"]
    assert "Traceback" not in out.stderr
    assert (out.response, out.exit) == (out.expected, case.exit), out.stderr
    if case.stderr is not None:
        assert case.stderr in out.stderr
    if case.exit == 2:  # every one of these agents takes stderr as the reason on exit 2: it must say why
        assert out.stderr.strip(), "exit 2 without a reason on stderr"
    assert json.dumps(out.response)
