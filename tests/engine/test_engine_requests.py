"""The engine side of the builtin policies: native signal providers (R1), builtin policy configuration and
generated signals from builtin_policy_config.py (R2, R6), unit-test files never bundled (R3), $HOME
in the cache key (R4), git_pre_check signals only for git operations (R5)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from cupcake_py.engine import bundle as bundles
from cupcake_py.engine import native_signals
from cupcake_py.engine.builtin_policy_config import GIT_OPERATION
from cupcake_py.engine.evaluator import _builtin_signal_applies
from cupcake_py.engine.project import ConfigDir, rego_files, shipped_policies_dir

ROUTED = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_signals: [{signals}]
package cupcake.policies.{pkg}

import rego.v1

deny contains {{"rule_id": "X", "reason": "x"}} if {{ false }}
"""


def project(tmp_path: Path, rulebook: str = "", policies: dict[str, str] | None = None) -> ConfigDir:
    d = tmp_path / ".cupcake"
    (d / "policies/opencode").mkdir(parents=True)
    if rulebook:
        (d / "rulebook.yml").write_text(rulebook)
    for name, text in (policies or {}).items():
        p = d / "policies/opencode" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return ConfigDir("project", d, tmp_path)


# ------------------------------------------------------------------ R1 native providers


def test_native_providers_are_registered_with_their_names(tmp_path: Path) -> None:
    for name in ("git.branch", "git.is_repo", "git.last_commit", "file.line_count", "file.head", "file.head_4kb"):
        assert native_signals.provides(name), name
    for name in ("git.bogus", "file.head_0kb", "file.head_2000kb", "files.exists", "gitbranch"):
        assert not native_signals.provides(name), name
    f = tmp_path / "a.txt"
    f.write_text("1\n2\n3\n")
    got = native_signals.gather(["file.line_count", "file.exists", "git.is_repo", "git.branch"],
                                {"resolved_file_path": str(f)}, tmp_path, time.monotonic() + 10)
    assert got == {"file.line_count": 3, "file.exists": True, "git.is_repo": False, "git.branch": None}


def test_unknown_native_signal_name_is_a_bundle_error(tmp_path: Path) -> None:
    cfg = project(tmp_path, policies={"p.rego": ROUTED.format(pkg="p", signals='"git.brnch"')})
    with pytest.raises(bundles.BundleError, match="git.brnch"):
        bundles.build(cfg, "k")


def test_provider_failure_fails_closed_naming_the_signals(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cupcake_py.engine.native_signals import file as file_signals

    def broken(*_a: object) -> dict[str, object]:
        raise KeyError("boom")

    monkeypatch.setattr(file_signals, "gather", broken)
    with pytest.raises(native_signals.SignalProviderError, match=r"file.size failed: KeyError"):
        native_signals.gather(["file.size"], {}, tmp_path, time.monotonic() + 5)
    monkeypatch.setattr(file_signals, "gather", lambda *_a: ["not", "a", "dict"])
    with pytest.raises(native_signals.SignalProviderError, match="returned list"):
        native_signals.gather(["file.size"], {}, tmp_path, time.monotonic() + 5)


# ------------------------------------------------------------------ R2 / R6 builtin_config


def test_bundle_takes_builtin_config_and_signals_from_builtin_config(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ann")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/home/ann/.config")
    cfg = project(tmp_path, rulebook="""builtins:
  protected_paths: {paths: ["~/notes/", "$HOME/keys", "config/"]}
  always_inject:
    context: ["first", {command: "echo second"}, "third", {file: "FOURTH.md"}]
  git_pre_check: {checks: [{command: "make lint", message: "lint"}]}
""")
    b = bundles.build(cfg, "k")
    assert b.builtin_config["protected_paths"]["paths"] == ["/home/ann/notes/", "/home/ann/keys", "config/"]
    assert b.builtin_config["protected_paths"]["home"] == "/home/ann"
    assert b.builtin_config["always_inject"]["items"] == [
        {"text": "first"}, {"signal": "__builtin_always_inject_1"}, {"text": "third"},
        {"signal": "__builtin_always_inject_3"}]
    assert b.signals["__builtin_always_inject_1"]["command"] == "echo second"
    assert b.signals["__builtin_always_inject_3"]["command"] == "cat -- FOURTH.md"
    assert b.signals["__builtin_git_pre_check_0"]["command_pattern"] == GIT_OPERATION
    assert b.builtin_config["git_pre_check"]["checks"] == [
        {"command": "make lint", "message": "lint", "signal": "__builtin_git_pre_check_0"}]


@pytest.mark.parametrize("name", ["system_protection", "sensitive_data_protection", "cupcake_exec_protection"])
def test_global_only_builtins_are_refused_in_a_project(tmp_path: Path, name: str) -> None:
    cfg = project(tmp_path, rulebook=f"builtins:\n  {name}: {{}}\n")
    with pytest.raises(bundles.BundleError, match=f"{name} can only be enabled in the global rulebook"):
        bundles.build(cfg, "k")


def test_enforce_full_file_read_message_defaults_to_max_lines() -> None:
    from cupcake_py.engine.builtin_policy_config import policy_config
    from cupcake_py.engine.rulebook import EnforceFullFileRead

    assert policy_config("enforce_full_file_read", EnforceFullFileRead(max_lines=50)) == {"max_lines": 50}
    assert policy_config("enforce_full_file_read", EnforceFullFileRead(message="m"))["message"] == "m"


# ------------------------------------------------------------------ R3 unit-test files


def test_rego_files_skip_unit_tests(tmp_path: Path) -> None:
    for name in ("a.rego", "a_test.rego", "sub/b.rego", "sub/b_test.rego", "test.rego", "latest.rego"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("package x\n")
    assert [p.relative_to(tmp_path).as_posix() for p in rego_files(tmp_path)] == \
        ["a.rego", "latest.rego", "sub/b.rego", "test.rego"]


def test_unit_test_files_never_reach_the_bundle(tmp_path: Path) -> None:
    # A decision rule without routing would be a RoutingError if the test files were bundled.
    unrouted = "package cupcake.policies.t_test\n\nimport rego.v1\n\ndeny contains 1 if { true }\n"
    cfg = project(tmp_path, policies={"t_test.rego": unrouted, "deep/u_test.rego": unrouted})
    system = cfg.system_dir
    system.mkdir()
    shipped = shipped_policies_dir() / "system"
    for f in rego_files(shipped):
        (system / f.name).write_bytes(f.read_bytes())
    (system / "evaluate_test.rego").write_text(unrouted.replace("policies.t_test", "system.evaluate_test"))
    (cfg.cupcake_dir / "rulebook.yml").write_text("builtins:\n  rulebook_security_guardrails: {enabled: false}\n")
    key = bundles.cache_key(cfg)
    b = bundles.build(cfg, key)
    assert b.policies == {} and b.wasm == b""
    assert not [s for s in b.sources if s.endswith("_test.rego")]
    (cfg.policies_dir / "t_test.rego").write_text(unrouted + "# changed\n")
    assert bundles.cache_key(cfg) == key, "test files are not bundle sources"


# ------------------------------------------------------------------ R4 cache key


def test_cache_key_includes_home_and_global_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = project(tmp_path)
    monkeypatch.setenv("HOME", "/home/a")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/cfg/a")
    key = bundles.cache_key(cfg)
    monkeypatch.setenv("HOME", "/home/b")
    assert bundles.cache_key(cfg) != key
    monkeypatch.setenv("HOME", "/home/a")
    assert bundles.cache_key(cfg) == key
    monkeypatch.setenv("XDG_CONFIG_HOME", "/cfg/b")
    assert bundles.cache_key(cfg) != key


# ------------------------------------------------------------------ R5 when builtin-policy signals run


@pytest.mark.parametrize(("command", "runs"), [
    ("ls -la", False),
    ("git status", False),
    ("git log --oneline", False),
    ("gitk commit", False),
    ("git commit -m x", True),
    ("cd app && git push origin main", True),
    ("/usr/bin/git -C /repo merge feature", True),
    ('git -c user.name="A B" commit -m x', True),
    ('sh -c "git commit -am wip"', True),
    ("git --no-pager commit", True),
])
def test_git_pre_check_signals_only_for_git_operations(command: str, runs: bool) -> None:
    spec = {"command": "make test", "timeout_seconds": 30, "command_pattern": GIT_OPERATION}
    assert _builtin_signal_applies(spec, {"tool_input": {"command": command}}) is runs


def test_command_pattern_needs_a_command_and_extension_needs_a_file() -> None:
    spec = {"command": "x", "timeout_seconds": 1, "command_pattern": GIT_OPERATION}
    assert not _builtin_signal_applies(spec, {"tool_input": {"filePath": "a.py"}})
    assert not _builtin_signal_applies(spec, {})
    ext = {"command": "x", "timeout_seconds": 1, "extension": "py"}
    assert _builtin_signal_applies(ext, {"resolved_file_path": "/p/a.py"})
    assert _builtin_signal_applies(ext, {"affected_files": ["/p/README.md", "/p/b.py"]})
    assert not _builtin_signal_applies(ext, {"resolved_file_path": "/p/a.pyc"})
    assert not _builtin_signal_applies(ext, {"resolved_file_path": "/p/py"})
    assert re.search(GIT_OPERATION, "git commit") is not None
