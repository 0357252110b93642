"""`cupcake validate` as Regal users expect (issue 33): `# cupcake ignore:RULE` suppressions, the
lint config file (.cupcake/lint.yml, Regal's shape) for levels and ignored files, --fail-level,
JUnit output, and --watch; all through the real `cupcake` executable."""

from __future__ import annotations

import os
import select
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cupcake_py.harness.examples import cupcake_command
from tests.authoring.cli_project import cupcake, env_for

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.opencode.lintme

import rego.v1

block contains {"rule_id": "LINT-1", "reason": "no", "severity": "HIGH"} if {
\tinput.tool_input.command == "x"
}
"""
PREFER_DENY_ROW = 10


@pytest.fixture()
def proj(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    env = env_for(tmp_path)
    p = tmp_path / "proj"
    p.mkdir()
    assert cupcake(["init", "--harness", "opencode", "--no-global"], p, env).code == 0
    (p / ".cupcake/policies/opencode/lintme.rego").write_text(POLICY)
    return p, env


def test_a_warning_fails_only_at_fail_level_warning(proj: tuple[Path, dict[str, str]]) -> None:
    p, env = proj
    r = cupcake(["validate"], p, env)
    assert r.code == 0 and f"lintme.rego:{PREFER_DENY_ROW}:1: warning [prefer-deny]" in r.out
    r = cupcake(["validate", "--fail-level", "warning"], p, env)
    assert r.code == 1
    r = cupcake(["validate", "--fail-level", "fatal"], p, env)
    assert r.code == 2 and "--fail-level" in r.err


def test_inline_suppression_on_the_line_above_or_the_same_line(proj: tuple[Path, dict[str, str]]) -> None:
    p, env = proj
    f = p / ".cupcake/policies/opencode/lintme.rego"
    f.write_text(POLICY.replace("block contains", "# cupcake ignore:prefer-deny\nblock contains"))
    r = cupcake(["validate", "--fail-level", "warning"], p, env)
    assert r.code == 0 and "prefer-deny" not in r.out, r.out
    f.write_text(POLICY.replace('"HIGH"} if {', '"HIGH"} if { # cupcake ignore:unused-import, prefer-deny'))
    assert "prefer-deny" not in cupcake(["validate"], p, env).out
    f.write_text(POLICY.replace("block contains", "# cupcake ignore:print-call\nblock contains"))
    assert "prefer-deny" in cupcake(["validate"], p, env).out  # another rule's suppression does not hide it
    f.write_text(POLICY.replace("block contains", "# cupcake ignore:prefer-denny\nblock contains"))
    r = cupcake(["validate"], p, env)
    assert "prefer-deny" in r.out and "names no lint rule (did you mean `prefer-deny`?)" in r.err


def test_config_levels_and_ignored_files(proj: tuple[Path, dict[str, str]]) -> None:
    p, env = proj
    cfg = p / ".cupcake/lint.yml"
    cfg.write_text("rules:\n  cupcake:\n    prefer-deny:\n      level: error\n")
    r = cupcake(["validate"], p, env)
    assert r.code == 1 and "error [prefer-deny]" in r.out
    cfg.write_text("rules:\n  cupcake:\n    prefer-deny:\n      level: ignore\n")
    r = cupcake(["validate", "--fail-level", "info"], p, env)
    assert "prefer-deny" not in r.out
    cfg.write_text("rules:\n  cupcake:\n    prefer-deny:\n      ignore:\n        files: ['policies/opencode/lint*.rego']\n")
    assert "prefer-deny" not in cupcake(["validate"], p, env).out
    cfg.write_text("rules:\n  hygiene:\n    prefer-deny:\n      level: error\n")
    r = cupcake(["validate"], p, env)
    assert r.code == 2 and "lint.yml:3:5: prefer-deny is in category cupcake, not hygiene" in r.err
    cfg.write_text("rules:\n  cupcake:\n    prefer-denny:\n      level: error\n")
    r = cupcake(["validate"], p, env)
    assert r.code == 2 and "did you mean `prefer-deny`?" in r.err
    cfg.write_text("rules:\n  compile:\n    parse-error:\n      level: ignore\n")
    r = cupcake(["validate"], p, env)
    assert r.code == 2 and "cannot be ignored" in r.err
    other = p / "elsewhere.yml"
    other.write_text("rules:\n  cupcake:\n    prefer-deny:\n      level: error\n")
    cfg.unlink()
    assert cupcake(["validate", "--config", str(other)], p, env).code == 1


def test_junit_report(proj: tuple[Path, dict[str, str]]) -> None:
    p, env = proj
    r = cupcake(["validate", "--format", "junit"], p, env)
    root = ET.fromstring(r.out)
    assert root.tag == "testsuites" and root.get("failures") == "1"
    failures = root.findall(".//failure")
    assert len(failures) == 1 and failures[0].get("type") == "warning"
    assert "prefer-deny" in (failures[0].text or "")
    assert len(root.findall("testsuite")) >= 2  # one per file, the clean ones pass
    assert cupcake(["validate", "--format", "yaml"], p, env).code == 2


def _read_until(proc: subprocess.Popen[bytes], needle: str, timeout: float) -> str:
    """Read the unbuffered pipe until `needle` was printed (select on the raw fd: nothing hides in a buffer)."""
    assert proc.stdout is not None
    fd, seen, deadline = proc.stdout.fileno(), b"", time.monotonic() + timeout
    while needle.encode() not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{needle!r} not seen in time; output so far:\n{seen.decode()}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            assert chunk, f"the process ended; output:\n{seen.decode()}"
            seen += chunk
    return seen.decode()


@pytest.mark.parametrize("command", [["validate", "--watch"], ["test", "--watch"]])
def test_watch_reruns_on_a_change(proj: tuple[Path, dict[str, str]], command: list[str]) -> None:
    p, env = proj
    proc = subprocess.Popen([*cupcake_command(), *command], cwd=p, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0)
    try:
        first = "prefer-deny" if command[0] == "validate" else "PASS"
        _read_until(proc, first, 240)
        test = p / ".cupcake/tests/opencode/broken_test.rego"
        f = p / ".cupcake/policies/opencode/lintme.rego"
        if command[0] == "validate":
            f.write_text(POLICY.replace("block contains", "deny contains").replace('== "x"', '== "y" +'))
            _read_until(proc, "parse-error", 240)
        else:
            test.write_text("package cupcake.policies.opencode.broken_test\n\nimport rego.v1\n\n"
                            "test_fails if {\n\tfalse\n}\n")
            _read_until(proc, "FAIL", 240)
        assert proc.poll() is None  # still watching
    finally:
        proc.terminate()
        proc.wait(30)
