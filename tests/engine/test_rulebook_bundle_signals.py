from __future__ import annotations

import time
from pathlib import Path

import pytest

from cupcake_py.engine import bundle as bundles
from cupcake_py.engine.builtin_policy_config import policy_config
from cupcake_py.engine.options import UsageError, parse_args
from cupcake_py.engine.project import ConfigDir, ProjectError, find_global, find_project
from cupcake_py.engine.rulebook import Rulebook, RulebookError, parse_rulebook
from cupcake_py.engine.signals import SignalDeadline, run_signals
from tests.engine.rulebook_cases import BAD_RULEBOOKS

GUARDRAILS_PKG = "cupcake.policies.builtins.rulebook_security_guardrails"
GUARDRAILS_OFF = "builtins:\n  rulebook_security_guardrails: {enabled: false}\n"

# ------------------------------------------------------------------ rulebook


def test_rulebook_defaults_and_builtins() -> None:
    rb = parse_rulebook("builtins:\n  git_block_no_verify:\n  protected_paths: {paths: [/etc/], enabled: false}\n"
                        "  claude_code_enforce_full_file_read: {max_lines: 10}\n", Path("r.yml"))
    # rulebook_security_guardrails is on unless switched off explicitly
    assert sorted(rb.builtins.enabled()) == ["enforce_full_file_read", "git_block_no_verify",
                                             "rulebook_security_guardrails"]
    off = parse_rulebook("builtins:\n  rulebook_security_guardrails: {enabled: false}\n", Path("r.yml"))
    assert off.builtins.enabled() == {}
    assert policy_config("enforce_full_file_read", rb.builtins.enabled()["enforce_full_file_read"]) == {"max_lines": 10}
    assert parse_rulebook("", Path("r.yml")) == Rulebook()


@pytest.mark.parametrize(("text", "needle"), BAD_RULEBOOKS)
def test_rulebook_errors_have_locations(text: str, needle: str) -> None:
    with pytest.raises(RulebookError, match=needle.replace(".", r"\.").replace("[", r"\[")):
        parse_rulebook(text, Path("r.yml"))


# ------------------------------------------------------------------ project discovery


def test_find_project_and_global(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "p/.cupcake").mkdir(parents=True)
    (tmp_path / "p/a/b").mkdir(parents=True)
    found = find_project(None, tmp_path / "p/a/b")
    assert found == ConfigDir("project", tmp_path / "p/.cupcake", tmp_path / "p")
    assert find_project(str(tmp_path / "p/.cupcake")) == found == find_project(str(tmp_path / "p"))
    with pytest.raises(ProjectError):
        find_project(str(tmp_path / "p/a"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert find_global(None) is None
    (tmp_path / "cfg/cupcake").mkdir(parents=True)
    assert find_global(None) == ConfigDir("global", tmp_path / "cfg/cupcake", tmp_path / "cfg/cupcake")


# ------------------------------------------------------------------ bundle cache

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
package cupcake.policies.t

import rego.v1

deny contains {"rule_id": "T", "reason": "t"} if { input.tool_input.command == "x" }
"""


def test_bundle_codec_roundtrip_and_corruption() -> None:
    b = bundles.Bundle(key="k", scope="project", routing={"PreToolUse": ["p"]}, wasm=b"\0asm-bytes")
    key = b"k" * 32
    blob = bundles.encode(b, key)
    assert bundles.decode(blob, key) == b
    assert bundles.decode(blob, b"x" * 32) is None  # another user's (or a forger's) key
    assert bundles.decode(blob[:-1], key) is None
    assert bundles.decode(blob[:-1] + b"X", key) is None
    assert bundles.decode(b"garbage", key) is None


def test_cache_key_tracks_sources_rulebook_and_signals_not_location(tmp_path: Path) -> None:
    def make(root: Path) -> ConfigDir:
        (root / ".cupcake/policies/opencode").mkdir(parents=True)
        (root / ".cupcake/policies/opencode/t.rego").write_text(POLICY)
        return ConfigDir("project", root / ".cupcake", root)

    a, b = make(tmp_path / "a"), make(tmp_path / "b")
    key = bundles.cache_key(a)
    assert key == bundles.cache_key(b)
    (a.cupcake_dir / "rulebook.yml").write_text("signals: {}\n")
    assert bundles.cache_key(a) != key
    key = bundles.cache_key(a)
    (a.cupcake_dir / "signals").mkdir()
    (a.cupcake_dir / "signals/s.sh").write_text("echo 1")
    assert bundles.cache_key(a) != key
    key = bundles.cache_key(a)
    (a.policies_dir / "t.rego").write_text(POLICY + "\n")
    assert bundles.cache_key(a) != key


def test_load_builds_once_then_hits_without_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / ".cupcake/policies/opencode").mkdir(parents=True)
    (tmp_path / ".cupcake/policies/opencode/t.rego").write_text(POLICY)
    cfg = ConfigDir("project", tmp_path / ".cupcake", tmp_path)
    built, hit = bundles.load(cfg)
    assert not hit and built.routing == {"PreToolUse": [GUARDRAILS_PKG, "cupcake.policies.t"]}
    assert built.wasm.startswith(b"\0asm")

    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("a cache hit must not build")

    monkeypatch.setattr(bundles, "build", boom)
    again, hit = bundles.load(cfg)
    assert hit and again == built


def test_no_policies_means_no_wasm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / ".cupcake").mkdir()
    (tmp_path / ".cupcake/rulebook.yml").write_text(GUARDRAILS_OFF)
    b, _ = bundles.load(ConfigDir("project", tmp_path / ".cupcake", tmp_path))
    assert b.wasm == b"" and b.routing == {} and b.guardrails_disabled


def test_guardrails_are_compiled_into_an_empty_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / ".cupcake").mkdir()
    b, _ = bundles.load(ConfigDir("project", tmp_path / ".cupcake", tmp_path))
    assert b.routing == {"PreToolUse": [GUARDRAILS_PKG]} and not b.guardrails_disabled


def test_enabled_builtin_without_policy_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / ".cupcake").mkdir()
    (tmp_path / ".cupcake/rulebook.yml").write_text("builtins:\n  always_inject: {context: [hi]}\n")
    monkeypatch.setattr(bundles, "_candidate_builtin_policies", lambda cfg: {})
    with pytest.raises(bundles.BundleError, match="always_inject, rulebook_security_guardrails enabled but no policy"):
        bundles.load(ConfigDir("project", tmp_path / ".cupcake", tmp_path))


# ------------------------------------------------------------------ signals


def test_signals_values_failures_and_timeouts(tmp_path: Path) -> None:
    specs = {
        "json": {"command": "echo '{\"a\": [1, 2]}'", "timeout_seconds": 5},
        "text": {"command": "printf '  hello \\n'", "timeout_seconds": 5},
        "stdin": {"command": "cat", "timeout_seconds": 5},
        "cwd": {"command": "pwd", "timeout_seconds": 5},
        "fail": {"command": "echo out; echo err >&2; exit 4", "timeout_seconds": 5},
        "slow": {"command": "sleep 30", "timeout_seconds": 0.3},
        "big": {"command": "head -c 3000000 /dev/zero | tr '\\0' a", "timeout_seconds": 10},
    }
    t0 = time.monotonic()
    got = {r.name: r for r in run_signals(specs, b'{"e": 1}', tmp_path, time.monotonic() + 20)}
    assert time.monotonic() - t0 < 10
    assert got["json"].value == {"a": [1, 2]} and got["text"].value == "hello" and got["stdin"].value == {"e": 1}
    assert got["cwd"].value == str(tmp_path.resolve())
    assert got["fail"].value == {"exit_code": 4, "output": "out\n", "error": "err\n", "success": False}
    assert got["slow"].value["timed_out"] is True and got["slow"].value["success"] is False
    assert len(got["big"].value) == 1 << 20


def test_signals_deadline_raises(tmp_path: Path) -> None:
    with pytest.raises(SignalDeadline, match="hang"):
        run_signals({"hang": {"command": "sleep 30", "timeout_seconds": 60}}, b"", tmp_path, time.monotonic() + 0.3)


# ------------------------------------------------------------------ options


def test_options() -> None:
    o = parse_args(["--harness", "opencode", "--strict", "--timeout=2.5", "--trace", "all", "--debug-dir", "d",
                    "--wasm-max-memory", "16MB"])
    assert o.strict and o.timeout == 2.5 and "wasm" in o.trace and o.debug_files and o.wasm_max_memory == 16 << 20
    for bad in (["--timeout", "0"], ["--trace", "nope"], ["--strict=1"], ["--wasm-max-memory", "1KB"], ["x"]):
        with pytest.raises(UsageError):
            parse_args(bad)
