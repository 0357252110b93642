"""Rego v0 (OPA's --v0-compatible) wherever Rego files are read (issue 32): the per-file
version API shaped like OPA's bundle manifest, the `--v0-compatible` flag of parse, check,
build, validate and test, and a project's rulebook `rego_version` for `cupcake eval`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cupcake_py.rego import RegoErrors, parse_module, versions
from cupcake_py.rego.versions import RegoVersionError, RegoVersions

V0_POLICY = """package lib

deny[msg] {
	input.tool_name == "root"
	msg := "no root"
}

default ok = false

ok {
	count(deny) == 0
}
"""
V0_TEST = """package lib

test_root {
	deny["no root"] with input as {"tool_name": "root"}
}

test_ok {
	ok with input as {"tool_name": "Bash"}
}
"""


def test_manifest_versions_per_file() -> None:
    v = RegoVersions.from_manifest({"rego_version": 0, "file_rego_versions": {
        "/new/*.rego": 1, "new/legacy/**": 0, "lib/x.rego": 1}}, root="/b")
    assert v.of("/b/old/a.rego") == "v0"
    assert v.of("/b/new/a.rego") == "v1"
    # OPA: glob.Compile(pattern) with no separator, so `*` crosses directories; the longest pattern wins
    assert v.of("/b/new/sub/a.rego") == "v1"
    assert v.of("/b/new/legacy/a.rego") == "v0"
    assert v.of("/b/new/legacy/deep/a.rego") == "v0"
    assert v.of("/b/lib/x.rego") == "v1"
    assert RegoVersions.from_manifest({}).of("a.rego") == "v1"
    assert RegoVersions.from_manifest({"rego_version": 1}, default="v0").of("a.rego") == "v1"
    for bad in ({"rego_version": 2}, {"rego_version": True}, {"file_rego_versions": {"a": "x"}},
                {"file_rego_versions": ["a"]}):
        with pytest.raises(RegoVersionError):
            RegoVersions.from_manifest(bad)


def test_parse_module_follows_the_current_versions() -> None:
    with pytest.raises(RegoErrors, match="`if` keyword is required"):
        parse_module(V0_POLICY, "lib.rego")
    with versions.use(versions.V0_COMPATIBLE):
        m = parse_module(V0_POLICY, "lib.rego")
        assert m.rego_version == "v0"
        assert m.rules[0].head.key is not None  # deny[msg] is a partial set
        assert parse_module("package p\n\nimport rego.v1\n\nq := 1\n").rego_version == "v1"
    assert versions.current() is versions.V1_ONLY


def _cupcake(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / ".cache"), "XDG_CONFIG_HOME": str(cwd / ".config")}
    return subprocess.run([sys.executable, "-m", "cupcake_py", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_every_command_reads_v0_with_the_flag(tmp_path: Path) -> None:
    (tmp_path / "lib.rego").write_text(V0_POLICY)
    (tmp_path / "lib_test.rego").write_text(V0_TEST)
    assert _cupcake("check", ".", cwd=tmp_path).returncode == 1
    assert _cupcake("check", "--v0-compatible", ".", cwd=tmp_path).returncode == 0
    parsed = _cupcake("parse", "--v0-compatible", "lib.rego", cwd=tmp_path)
    assert parsed.returncode == 0 and "deny contains msg if {" in parsed.stdout
    test = _cupcake("test", "--v0-compatible", "--format", "json", ".", cwd=tmp_path)
    assert test.returncode == 0, test.stderr
    assert {r["name"]: r.get("fail", False) for r in json.loads(test.stdout)} == {"test_root": False,
                                                                               "test_ok": False}
    assert _cupcake("test", ".", cwd=tmp_path).returncode == 1  # v1 by default: a parse error
    lint = _cupcake("validate", "--v0-compatible", "--format", "json", ".", cwd=tmp_path)
    assert "keyword is required" not in lint.stdout and "deny" in lint.stdout  # linted, not refused
    assert "keyword is required" in _cupcake("validate", "--format", "json", ".", cwd=tmp_path).stdout
    built = _cupcake("build", "--v0-compatible", "-e", "lib/ok", "-o", "ok.wasm", ".", cwd=tmp_path)
    assert built.returncode == 0 and (tmp_path / "ok.wasm").stat().st_size > 0


def test_a_project_rulebook_rego_version_reaches_eval(tmp_path: Path) -> None:
    assert _cupcake("init", "--harness", "opencode", cwd=tmp_path).returncode == 0
    cfg = tmp_path / ".cupcake"
    with (cfg / "rulebook.yml").open("a") as f:
        f.write("rego_version: 0\nfile_rego_versions: {\"policies/opencode/modern/**\": 1}\n")
    (cfg / "policies/opencode/legacy.rego").write_text(
        "# METADATA\n# custom:\n#   routing:\n#     required_events: [PreToolUse]\n#     required_tools: [Bash]\n"
        "package cupcake.policies.opencode.legacy\n\n"
        "deny[d] {\n\tcontains(input.tool_input.command, \"legacy-danger\")\n"
        "\td := {\"rule_id\": \"LEGACY-1\", \"reason\": \"legacy says no\", \"severity\": \"HIGH\"}\n}\n")
    (cfg / "policies/opencode/modern").mkdir()
    (cfg / "policies/opencode/modern/m.rego").write_text(
        "package cupcake.policies.opencode.modern\n\nflag := true if input.x\n")
    assert _cupcake("validate", cwd=tmp_path).returncode == 0
    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(tmp_path), "tool": "bash"}
    denied = subprocess.run([sys.executable, "-m", "cupcake_py", "eval", "--harness", "opencode"], cwd=tmp_path,
                            input=json.dumps({**event, "args": {"command": "echo legacy-danger"}}),
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / ".cache"),
                                 "XDG_CONFIG_HOME": str(tmp_path / ".config")})
    assert json.loads(denied.stdout)["decision"] == "deny", denied.stdout + denied.stderr
    assert "LEGACY-1" in denied.stdout
    allowed = subprocess.run([sys.executable, "-m", "cupcake_py", "eval", "--harness", "opencode"], cwd=tmp_path,
                             input=json.dumps({**event, "args": {"command": "ls"}}), capture_output=True, text=True,
                             timeout=120, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / ".cache"),
                                               "XDG_CONFIG_HOME": str(tmp_path / ".config")})
    assert json.loads(allowed.stdout)["decision"] == "allow", allowed.stdout
