"""Every Claude Code example in harness/claude/examples/cases/ through the real
`cupcake eval --harness claude` process (evaluated concurrently, checked one test per case), and
what the case set must cover: every event type, every answer shape, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from cupcake_py.harness.claude import data
from cupcake_py.harness.examples import Case, Outcome, load_cases, run_cases
from tests.e2e_eval.answer_shapes import shape

CASES = load_cases(harness="claude")
EVENTS = data.event_schema()["properties"]["hook_event_name"]["enum"]


def test_there_are_enough_examples_of_every_kind() -> None:
    assert len(CASES) >= 60
    events = {c.event["hook_event_name"] for c in CASES if isinstance(c.event, dict)}
    assert set(EVENTS) <= events, set(EVENTS) - events
    shapes = {shape(c.expect, c.exit) for c in CASES}
    assert {"halt", "deny", "ask", "modify", "block", "stop", "context", "allow", "permission-deny", "fail"} <= shapes
    tools = {c.event.get("tool_name") for c in CASES if isinstance(c.event, dict)}
    assert {"Bash", "Edit", "Write", "Read", "NotebookEdit", "Agent", "Grep", "Glob", "WebFetch", "Skill"} <= tools
    assert any(str(t).startswith("mcp__") for t in tools)
    assert sum(c.exit == 2 for c in CASES) >= 8, "bad input and failures"


def test_every_expected_answer_is_claude_code_hook_output() -> None:
    schema = data.response_schema()
    for c in CASES:
        jsonschema.validate(c.expect, schema)


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    selected: list[Case] = [item.callspec.params["case"] for item in request.session.items
                            if item.module is request.module and hasattr(item, "callspec")]
    root: Path = tmp_path_factory.mktemp("claude-examples")
    return {o.case.name: o for o in run_cases(selected, root)}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_claude_example(case: Case, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[case.name]
    assert "Traceback" not in out.stderr
    assert (out.response, out.exit) == (out.expected, case.exit), out.stderr
    if case.stderr is not None:
        assert case.stderr in out.stderr
    if case.exit == 2:  # Claude Code shows stderr to the model on exit 2: it must say why
        assert out.stderr.strip(), "exit 2 without a reason on stderr"
        if "--strict" not in case.args:
            assert out.stderr.strip().startswith("cupcake:"), out.stderr
    assert json.dumps(out.response)  # one JSON document on stdout
