"""The OpenCode preprocessing puts `shell` on Bash events (with the tool's workdir as cwd)
and on no other event."""

from __future__ import annotations

from pathlib import Path

from cupcake_py.harness.opencode.preprocess import preprocess

from .conftest import VALIDATOR


def _event(tool: str, args: dict[str, object], cwd: Path) -> dict[str, object]:
    return {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(cwd), "call_id": "c", "tool": tool,
            "args": args}


def test_bash_event_gets_shell_analysis_relative_to_workdir(project: Path) -> None:
    out = preprocess(_event("bash", {"command": "rm -rf a.py\ncat ../.env", "workdir": "src"}, project))
    shell = out["shell"]
    VALIDATOR.validate(shell)
    assert shell["cwd"] == str(project / "src")
    assert shell["source"] == "rm -rf a.py\ncat ../.env"  # the raw command, not the normalised one
    assert shell["effects"]["deletes"] == [str(project / "src/a.py")]
    assert shell["effects"]["reads"] == [str(project / ".env")]


def test_other_tools_get_no_shell_analysis(project: Path) -> None:
    assert "shell" not in preprocess(_event("read", {"filePath": str(project / "README.md")}, project))


def test_unparsable_command_is_opaque_not_an_error(project: Path) -> None:
    shell = preprocess(_event("bash", {"command": "cat <<< ((( $("}, project))["shell"]
    assert shell["parsed"] is False and shell["opaque"]


def test_the_schema_is_a_valid_json_schema() -> None:
    from .conftest import SCHEMA

    VALIDATOR.check_schema(SCHEMA)
