"""Every example in harness/opencode/examples/cases/ through the real `cupcake eval` process
(evaluated concurrently, checked one test per case)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cupcake_py.engine.builtin_policy_config import GLOBAL_ONLY
from cupcake_py.engine.rulebook import Builtins, load_rulebook
from cupcake_py.harness.examples import project_dir
from cupcake_py.harness.opencode.examples import Case, Outcome, load_cases, run_cases

CASES = load_cases()
PROJECT_CASES = [c for c in CASES if c.project == "project"]
# rule ids of the shipped builtins (always_inject answers with context, not a rule id)
BUILTIN_RULE_IDS = {"BUILTIN-PROTECTED-PATHS", "BUILTIN-PROTECTED-PATHS-PARENT", "BUILTIN-PROTECTED-PATHS-UNCERTAIN",
                    "BUILTIN-RULEBOOK-SECURITY", "BUILTIN-GIT-BLOCK-NO-VERIFY", "BUILTIN-GIT-CHECK",
                    "BUILTIN-POST-EDIT", "BUILTIN-ENFORCE-FULL-READ", "GLOBAL-BUILTIN-SYSTEM-PROTECTION",
                    "GLOBAL-BUILTIN-SENSITIVE-DATA", "GLOBAL-BUILTIN-CUPCAKE-EXEC"}


def test_there_are_enough_examples() -> None:
    assert len(CASES) >= 40
    tools = {c.event["tool"] for c in CASES if isinstance(c.event, dict) and "tool" in c.event}
    assert {"bash", "edit", "write", "read", "grep", "glob", "task", "todowrite", "webfetch", "skill",
            "apply_patch", "list", "todoread"} <= tools
    assert any("_" in t and t not in ("apply_patch",) for t in tools), "an MCP tool <server>_<tool>"
    decisions = {c.expect["decision"] for c in CASES}
    assert decisions == {"allow", "ask", "deny", "block"}
    assert any("updated_args" in c.expect for c in CASES) and any("context" in c.expect for c in CASES)


def test_example_project_enables_every_builtin_and_cases_cover_them() -> None:
    every = set(Builtins.model_fields)
    project = load_rulebook(project_dir() / ".cupcake" / "rulebook.yml").builtins.enabled()
    glob = load_rulebook(project_dir(name="global-config") / "rulebook.yml").builtins.enabled()
    # the rulebook security guardrails are on everywhere unless switched off. The history builtins are
    # stateful (their answer depends on earlier calls of the session), so the example cases, which run
    # concurrently and in any order, cannot hold them: tests/governance and the OpenCode e2e
    # (tests/plugin/test_e2e_governance.py) cover them.
    stateful = {"rate_limit", "escalation", "loop_guard"}
    assert set(project) == every - GLOBAL_ONLY - stateful
    assert set(glob) == GLOBAL_ONLY | {"rulebook_security_guardrails"}
    seen = {r for c in PROJECT_CASES for r in c.expect.get("rule_ids", [])}
    assert BUILTIN_RULE_IDS <= seen, sorted(BUILTIN_RULE_IDS - seen)
    contexts = [x for c in PROJECT_CASES for x in c.expect.get("context", [])]
    assert any("CONVENTIONS" in x or "Conventions:" in x for x in contexts), "always_inject"
    assert any(x.startswith("✓ Validation passed") for x in contexts), "post_edit_check success"
    # each builtin's cases (ex-<prefix>-…) answer both ways
    for prefix in ("pp", "rg", "gnv", "gpc", "pec", "efr", "sys", "sdp", "cep"):
        answers = {c.expect["decision"] == "allow" for c in PROJECT_CASES if c.name.startswith(f"ex-{prefix}-")}
        assert answers == {True, False}, prefix


@pytest.fixture(scope="module")
def outcomes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """The outcomes of the cases selected in this session (all at once, concurrently)."""
    selected: list[Case] = [item.callspec.params["case"] for item in request.session.items
                            if item.module is request.module and hasattr(item, "callspec")]
    root: Path = tmp_path_factory.mktemp("examples")
    return {o.case.name: o for o in run_cases(selected, root)}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_example(case: Case, outcomes: dict[str, Outcome]) -> None:
    out = outcomes[case.name]
    assert "Traceback" not in out.stderr
    assert (out.response, out.exit) == (out.expected, case.exit), out.stderr
