"""The cold `cupcake eval` path stays lean: a routing miss (no WASM) must not import what
only other commands or other branches need. Functional (which modules), not timing.

The audit log is on by default (a rulebook without the `audit` key records): its write brings the
governance store and `_sqlite3`, whose module init imports functools (RECORDING; its cost is
measured by benches/governance_cost.py). With `audit: off` none of NOT_IMPORTED loads."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.harness.examples import examples_dir, isolated_env, project_dir

# module -> why it must stay off the routing-miss path
NOT_IMPORTED = {
    "orjson": "pulls dataclasses, datetime, uuid, platform, inspect; JSON goes through cupcake_py.core.jsonio",
    "json": "its pure-Python parts pull re; jsonio drives _json directly",
    "dataclasses": "engine/harness records are slotted classes (cupcake_py.core.record)",
    "logging": "cupcake_py.core.lazylog imports it only to emit a message",
    "hashlib": "bundle keys use the builtin sha256 (hashlib loads OpenSSL)",
    "wasmtime": "nothing routed: no WASM, no host",
    "cupcake_py.host": "nothing routed: no host",
    "typing": "annotations only (TYPE_CHECKING blocks)",
    "datetime": "only for --debug-files and telemetry",
    "shlex": "only for signal files and always_inject file items",
    "signal": "the C module _signal serves the deadline alarm and the reaper",
    "cupcake_py.engine.rulebook": "pydantic/YAML only to build a bundle (cache miss)",
    "ruamel": "rulebook.yml is read (engine/yaml_source.py, ~17 ms to import) only to build a bundle (cache miss)",
    "pathlib": "the eval path works on str paths (os.path, os.scandir); Path-returning variants serve other commands",
    "urllib.parse": "only pathlib pulls it in (file URIs)",
    "ipaddress": "only urllib.parse pulls it in",
    "fnmatch": "only pathlib's glob pulls it in",
    "functools": "memos instead of functools.cache (functools pulls collections, operator, reprlib)",
    "re": "a routing miss parses no shell command or patch (re pulls enum and functools)",
    "git": "GitPython (~55 ms) serves only `cupcake validate --changed`",
    "rich": "progress display of the authoring commands only",
    "sqlite3": "only when the rulebook records (audit: on|required) or a policy reads input.history",
    "cupcake_py.governance.store": "the governance database is opened only when a bundle records",
    "typer": "the typer app (cupcake_py/cli/) serves every command but `cupcake eval`",
    "click": "only typer pulls it in",
    "cupcake_py.cli": "the command-line package: typer commands, and the help texts for --help only",
    "cupcake_py.fleet": "bundle fetching, signatures and decision-log export never run on the eval path (docs/fleet.md)",
    "cupcake_py.engine.fleet_config": "fleet.yml is parsed only on a miss of its parsed copy (engine/fleet_active.py)",
    "jwt": "signatures are checked when a bundle is activated, not per evaluation",
    "opentelemetry": "decision logs are exported by `cupcake logs export` / `cupcake serve`, not by `cupcake eval`",
}

# module -> why a recording evaluation (the default) may import it
RECORDING = {
    "cupcake_py.governance.store": "the audit write (on by default) opens the governance database",
    "functools": "_sqlite3's own module init imports it (the audit write)",
}


def offenders(loaded: set[str], allowed: frozenset[str] | set[str] = frozenset()) -> dict[str, str]:
    """NOT_IMPORTED modules in `loaded`, but those `allowed` and those a recording evaluation needs;
    and the evaluation did record (the audit is on by default)."""
    assert {"cupcake_py.governance.audit", "_sqlite3"} <= loaded, "a rulebook without `audit` records"
    return {m: why for m, why in NOT_IMPORTED.items() if m in loaded and m not in allowed and m not in RECORDING}


PROBE = """
import io, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from cupcake_py.app.fast_eval import main
code = main(["--harness", "opencode"])
modules = sorted(sys.modules)  # before the probe's own json import
sys.stdout.flush()
import json
print(json.dumps({"code": code, "modules": modules}), file=sys.stderr)
"""


def probe_project(tmp_path: Path, audit: str) -> tuple[Path, dict[str, str]]:
    """A copy of the example engine project (with `audit: off` appended when `audit` is "off") and a
    private environment for PROBE runs in it."""
    project = tmp_path / "project"
    shutil.copytree(examples_dir() / "engine-project", project, symlinks=True)
    if audit == "off":
        with (project / ".cupcake" / "rulebook.yml").open("a") as f:
            f.write("audit: off\n")
    (tmp_path / "config").mkdir()
    return project, isolated_env(tmp_path / "cache", tmp_path / "config")


def cold_run(probe: str, event: str, project: Path, env: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The second of two runs of `probe` on `event` (the first builds the bundle: compiler, pydantic …; the second
    is the cold eval): its stdout and the probe's report (exit code, loaded modules)."""
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", probe, event], capture_output=True, text=True, cwd=project,
                              env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stderr.splitlines()[-1])
    return proc.stdout, report


@pytest.mark.parametrize("audit", ["default", "off"])
def test_routing_miss_imports_none_of_the_heavy_modules(tmp_path: Path, audit: str) -> None:
    project, env = probe_project(tmp_path, audit)
    event = json.dumps({"hook_event_name": "PermissionRequest", "session_id": "s", "cwd": str(project),
                        "call_id": "c", "tool": "read", "args": {"filePath": str(project / "src/app.py")}})
    stdout, report = cold_run(PROBE, event, project, env)
    assert json.loads(stdout) == {"decision": "allow"} and report["code"] == 0
    loaded = set(report["modules"])
    assert "cupcake_py.engine.bundle" in loaded  # the probe really ran the engine
    if audit == "off":  # the stateless path: no governance, no sqlite, no functools
        found = {m: why for m, why in NOT_IMPORTED.items() if m in loaded}
        assert not found and "_sqlite3" not in loaded, found
        assert not (tmp_path / "cache-state" / "cupcake-py" / "governance.sqlite3").exists()
    else:
        assert not offenders(loaded), offenders(loaded)
        assert (tmp_path / "cache-state" / "cupcake-py" / "governance.sqlite3").is_file()


def test_claude_routing_miss_imports_none_of_the_heavy_modules(tmp_path: Path) -> None:
    """The same guard for `--harness claude` (its halt memory reads one file, nothing more)."""
    project = tmp_path / "project"
    shutil.copytree(project_dir("claude"), project, symlinks=True)
    (tmp_path / "config").mkdir()
    env = isolated_env(tmp_path / "cache", tmp_path / "config")
    event = json.dumps({"hook_event_name": "Notification", "session_id": "s", "cwd": str(project),
                        "message": "Claude needs your permission"})
    probe = PROBE.replace('main(["--harness", "opencode"])', 'main(["--harness", "claude"])')
    assert probe != PROBE
    stdout, report = cold_run(probe, event, project, env)
    assert json.loads(stdout) == {} and report["code"] == 0
    loaded = set(report["modules"])
    assert "cupcake_py.engine.bundle" in loaded and "cupcake_py.harness.claude.harness" in loaded
    assert not {m for m in loaded if m.startswith("cupcake_py.harness.opencode")}
    assert not offenders(loaded), offenders(loaded)


def test_eval_help_comes_without_typer(tmp_path: Path) -> None:
    """`cupcake eval --help` through the console entry prints the help text of
    cupcake_py/cli/help_texts.py; typer and the typer app (cupcake_py/cli/app.py) stay unloaded."""
    probe = ("import os, sys\nfrom cupcake_py.app.entry import main\nsys.argv = ['cupcake', 'eval', '--help']\n"
             "def _exit(rc):\n"
             "    loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click', 'rich')"
             " or m == 'cupcake_py.cli.app')\n"
             "    print(rc, loaded, file=sys.stderr)\n    raise SystemExit(rc)\n"
             "os._exit = _exit\nmain()\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.stdout.startswith("Usage: cupcake eval [OPTIONS] < EVENT.json") and "--harness" in proc.stdout
    assert proc.stderr.splitlines()[-1] == "0 []", proc.stderr


HOOK_AGENT_MISSES = {  # (event, hook environment): an event no policy of the example project routes
    "codex": ({"hook_event_name": "SessionEnd", "session_id": "s", "cwd": "$P", "reason": "exit"}, {}),
    "gemini": ({"hook_event_name": "SessionEnd", "session_id": "s", "cwd": "$P", "reason": "exit"}, {}),
    "qwen": ({"hook_event_name": "SessionEnd", "session_id": "s", "cwd": "$P", "reason": "exit"}, {}),
    "copilot": ({"sessionId": "s", "timestamp": 1, "cwd": "$P", "reason": "complete"}, {"CUPCAKE_HOOK_EVENT": "sessionEnd"}),
    "factory": ({"session_id": "s", "cwd": "$P", "hook_event_name": "SessionEnd", "reason": "other"}, {}),
    "cline": ({"taskId": "t", "workspaceRoots": ["$P"], "hookName": "session_shutdown"},
              {"CUPCAKE_HOOK_EVENT": "SessionShutdown"}),
    "cursor": ({"conversation_id": "c", "workspace_roots": ["$P"], "hook_event_name": "sessionEnd"}, {}),
}


@pytest.mark.parametrize("agent", sorted(HOOK_AGENT_MISSES))
def test_hook_agent_routing_miss_imports_none_of_the_heavy_modules(agent: str, tmp_path: Path) -> None:
    """The same guard for the hook-command harnesses (hook_agent.py: codex, gemini, qwen,
    copilot, factory, cline, cursor)."""
    project = tmp_path / "project"
    shutil.copytree(project_dir(agent), project, symlinks=True)
    (tmp_path / "config").mkdir()
    raw, hook_env = HOOK_AGENT_MISSES[agent]
    env = {**isolated_env(tmp_path / "cache", tmp_path / "config"), **hook_env}
    event = json.dumps(raw).replace("$P", str(project))
    probe = PROBE.replace('main(["--harness", "opencode"])', f'main(["--harness", "{agent}"])')
    stdout, report = cold_run(probe, event, project, env)
    assert report["code"] == 0 and isinstance(json.loads(stdout), dict)
    loaded = set(report["modules"])
    assert f"cupcake_py.harness.{agent}.harness" in loaded and "cupcake_py.engine.bundle" in loaded
    assert not {m for m in loaded if m.startswith(("cupcake_py.harness.opencode.", "cupcake_py.harness.claude."))}
    # one framework (hook_agent.py) for every hook agent; a miss enriches nothing (no tool paths, no shell)
    assert "cupcake_py.harness.hook_agent" in loaded and not {m for m in loaded if m.startswith("cupcake_py.enrich")}
    assert not offenders(loaded), offenders(loaded)
