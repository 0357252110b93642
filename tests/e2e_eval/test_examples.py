"""Every example in harness/opencode/examples/cases/ through the real `cupcake eval` process."""

from __future__ import annotations

import pytest

from cupcake_py.harness.opencode.examples import isolated_env, load_cases, run_case

CASES = load_cases()


def test_there_are_enough_examples() -> None:
    assert len(CASES) >= 40
    tools = {c.event["tool"] for c in CASES if isinstance(c.event, dict) and "tool" in c.event}
    assert {"bash", "edit", "write", "read", "grep", "glob", "task", "todowrite", "webfetch", "skill",
            "apply_patch", "list", "todoread"} <= tools
    decisions = {c.expect["decision"] for c in CASES}
    assert decisions == {"allow", "ask", "deny", "block"}
    assert any("updated_args" in c.expect for c in CASES) and any("context" in c.expect for c in CASES)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("e2e-env")
    (root / "config").mkdir()
    return isolated_env(root / "cache", root / "config")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_example(case, env, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = run_case(case, tmp_path, env)
    assert "Traceback" not in out.stderr
    assert (out.response, out.exit) == (out.expected, case.exit), out.stderr
