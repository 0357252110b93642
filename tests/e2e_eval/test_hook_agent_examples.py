"""Every example event of the hook-command harnesses (GitHub Copilot CLI, Factory Droid, Cline, Cursor) in
harness/<name>/examples/cases/ through the real `cupcake eval --harness <name>` process (evaluated
concurrently, checked one test per case), and what each case set must cover: at least 40 events, every
event type the harness reads, every answer form (allow, deny, ask, modify, context, fail), bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cupcake_py.harness.examples import Case, Outcome, load_cases, run_cases

AGENTS = ("copilot", "factory", "cline", "cursor")
CASES = {a: load_cases(harness=a) for a in AGENTS}
ALL = [c for a in AGENTS for c in CASES[a]]


def _event_of(agent: str, case: Case) -> str | None:
    if not isinstance(case.event, dict):
        return None
    if agent in ("copilot", "cline"):
        return (case.env or {}).get("CUPCAKE_HOOK_EVENT")
    return str(case.event.get("hook_event_name"))


def _form(agent: str, expect: object, code: int) -> str:
    """The answer form of one expected answer, in the agent's own vocabulary."""
    if code == 2:
        return "fail"
    assert isinstance(expect, dict)
    text = json.dumps(expect)
    if agent == "copilot":
        if "modifiedArgs" in expect:
            return "modify"
        return str(expect.get("permissionDecision") or ("deny" if expect.get("behavior") == "deny" else "") or
                   ("block" if expect.get("decision") == "block" else "") or
                   ("context" if "additionalContext" in expect else "allow"))
    if agent == "factory":
        specific = expect.get("hookSpecificOutput") or {}
        assert isinstance(specific, dict)
        if expect.get("continue") is False:
            return "halt"
        if "updatedInput" in specific:
            return "modify"
        if specific.get("permissionDecision") == "deny":
            return "deny"
        if expect.get("decision") == "block":
            return "block"
        return "context" if "additionalContext" in text else "allow"
    if agent == "cline":
        if expect.get("cancel") is True:
            return "deny"
        if "overrideInput" in expect:
            return "modify"
        return "context" if "contextModification" in expect else "allow"
    if "updated_input" in expect:
        return "modify"
    if expect.get("permission") in ("deny", "ask"):
        return str(expect["permission"])
    if expect.get("continue") is False:
        return "deny"
    return "context" if "additional_context" in expect or "followup_message" in expect else "allow"


# Events each harness reads that its example set must exercise (the rest of harness.EVENTS: see the docs).
MUST_EVENTS = {
    "copilot": {"preToolUse", "postToolUse", "permissionRequest", "userPromptSubmitted", "sessionStart", "sessionEnd",
                "agentStop", "errorOccurred"},
    "factory": {"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop", "SessionEnd", "Notification"},
    "cline": {"PreToolUse", "PostToolUse", "UserPromptSubmit", "TaskStart", "TaskComplete", "TaskError",
              "SessionShutdown"},
    "cursor": {"preToolUse", "postToolUse", "beforeShellExecution", "afterShellExecution", "beforeMCPExecution",
               "beforeReadFile", "afterFileEdit", "beforeSubmitPrompt", "sessionStart", "sessionEnd", "subagentStart",
               "stop"},
}
MUST_FORMS = {
    "copilot": {"deny", "ask", "modify", "block", "context", "allow", "fail"},
    "factory": {"halt", "deny", "modify", "block", "context", "allow", "fail"},
    "cline": {"deny", "modify", "context", "allow", "fail"},
    "cursor": {"deny", "ask", "modify", "context", "allow", "fail"},
}


@pytest.mark.parametrize("agent", AGENTS)
def test_there_are_enough_examples_of_every_kind(agent: str) -> None:
    cases = CASES[agent]
    assert len(cases) >= 40
    events = {_event_of(agent, c) for c in cases}
    assert MUST_EVENTS[agent] <= events, MUST_EVENTS[agent] - events
    forms = {_form(agent, c.expect, c.exit) for c in cases}
    assert MUST_FORMS[agent] <= forms, MUST_FORMS[agent] - forms
    assert sum(c.exit == 2 for c in cases) >= 6, "bad input and failures"
    assert any(c.name.startswith("bash-rm-rf") for c in cases) and any("subagent" in c.name or "task-" in c.name
                                                                        for c in cases)


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    selected: list[Case] = [item.callspec.params["case"] for item in request.session.items
                            if item.module is request.module and hasattr(item, "callspec")
                            and "case" in item.callspec.params]
    out: dict[str, Outcome] = {}
    for agent in AGENTS:  # one root per harness: project copies are named after the case
        root: Path = tmp_path_factory.mktemp(f"{agent}-examples")
        out.update({f"{agent}/{o.case.name}": o for o in run_cases([c for c in selected if c.harness == agent], root, workers=2)})
    return out


@pytest.mark.parametrize("case", ALL, ids=[f"{c.harness}/{c.name}" for c in ALL])
def test_hook_agent_example(case: Case, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[f"{case.harness}/{case.name}"]
    assert "Traceback" not in out.stderr
    assert (out.response, out.exit) == (out.expected, case.exit), out.stderr
    if case.exit == 2:  # every failure says why, on stderr and in the agent's blocking answer
        assert out.stderr.strip().startswith("cupcake:"), out.stderr
        assert "cupcake:" in json.dumps(out.response)
    assert isinstance(out.response, dict)  # always one JSON object the agent parses
