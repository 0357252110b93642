"""Issue 33 point 5: a rulebook key given twice is refused with both line numbers (the README's own
append used to add a second `git_block_no_verify:` whose settings silently replaced the first)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cupcake_py.engine.rulebook import RulebookError, parse_rulebook
from tests.authoring.cli_project import cupcake, env_for

DUPLICATE = """builtins:
  git_block_no_verify:
    exceptions: ["docs/"]
  protected_paths:
    paths: ["secrets/"]
  git_block_no_verify: {}
"""


def test_duplicate_key_names_both_lines() -> None:
    with pytest.raises(RulebookError) as e:
        parse_rulebook(DUPLICATE, Path("rulebook.yml"))
    assert "rulebook.yml:6:3: duplicate key 'git_block_no_verify' (first at line 2, again at line 6)" in str(e.value)


def test_yaml_11_scalars_and_positions_are_kept() -> None:
    rb = parse_rulebook("audit: on\nbuiltins:\n  git_block_no_verify:\n    enabled: yes\n", Path("r.yml"))
    assert rb.builtins.enabled()
    with pytest.raises(RulebookError) as e:
        parse_rulebook("builtins:\n  protected_paths:\n    pathz: [a]\n", Path("r.yml"))
    assert "r.yml:3:5: builtins.protected_paths.pathz: unknown key" in str(e.value)


def test_cli_refuses_a_duplicate_key(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    proj = tmp_path / "proj"
    proj.mkdir()
    assert cupcake(["init", "--harness", "opencode", "--no-global"], proj, env).code == 0
    rulebook = proj / ".cupcake/rulebook.yml"
    rulebook.write_text("\n".join(["builtins:", "  git_block_no_verify:", "    exceptions: [docs/]",
                                   "  git_block_no_verify: {}", ""]))
    r = cupcake(["verify", "--harness", "opencode"], proj, env)
    assert r.code == 1
    assert "duplicate key 'git_block_no_verify' (first at line 2, again at line 4)" in r.out + r.err
    event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(proj), "tool": "bash",
                        "args": {"command": "ls"}})
    r = cupcake(["eval", "--harness", "opencode"], proj, env, stdin=event)
    assert r.code == 2 and '"deny"' in r.out and "line 2" in r.out + r.err  # fails closed, says why
