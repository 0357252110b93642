"""The cold `cupcake eval` path of a routed event (WASM under wasmtime, host builtins) stays
lean too: the host binds libwasmtime itself (host/capi.py), so the `wasmtime` Python
package is never imported, and neither is anything the routing-miss guard forbids.
Functional (which modules), not timing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from cupcake_py.harness.opencode.examples import examples_dir, isolated_env

from .test_import_diet import PROBE, offenders

# the host runs the WASM; preprocessing imports the harness's shell module (Bash commands) and
# parses commands and patches with re (which imports functools)
ALLOWED_WHEN_ROUTED = {"cupcake_py.host", "shlex", "re", "functools"}


def test_routed_wasm_evaluation_imports_none_of_the_heavy_modules(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(examples_dir() / "engine-project", project, symlinks=True)
    (tmp_path / "config").mkdir()
    env = isolated_env(tmp_path / "cache", tmp_path / "config")
    # protected_files (regex.match, sprintf) and any_tool are routed for a Read
    event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "call_id": "c",
                        "tool": "read", "args": {"filePath": str(project / ".env")}})
    runs = []
    for _ in range(2):  # the first run builds the bundle and compiles native code; the second is cold
        proc = subprocess.run([sys.executable, "-c", PROBE, event], capture_output=True, text=True, cwd=project,
                              env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs.append((proc.stdout, json.loads(proc.stderr.splitlines()[-1])))
    stdout, report = runs[1]
    answer = json.loads(stdout)
    assert answer["decision"] == "deny" and report["code"] == 0, answer
    loaded = set(report["modules"])
    # WASM ran (the deny above comes from the policies); their regex.match calls have constant
    # patterns, which run natively in the module (wasm/regex_call.py), so the host's regex
    # module need not load
    assert "cupcake_py.host.capi" in loaded
    assert not offenders(loaded, ALLOWED_WHEN_ROUTED), offenders(loaded, ALLOWED_WHEN_ROUTED)


# A routed Bash event also parses the command (cupcake_py.shell, tree-sitter-bash). tree_sitter's
# own package would import typing (`from typing import Protocol`), so its binding is loaded
# directly (shell/parse.py), as tree-sitter-bash's is. Nothing else heavy may come with it.
# The example project's Bash policies also gather signals (subprocess, which imports signal).
ALLOWED_WHEN_SHELL = ALLOWED_WHEN_ROUTED | {"signal"}


def test_routed_bash_evaluation_loads_the_parser_and_nothing_else_heavy(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(examples_dir() / "engine-project", project, symlinks=True)
    (tmp_path / "config").mkdir()
    env = isolated_env(tmp_path / "cache", tmp_path / "config")
    event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "call_id": "c",
                        "tool": "bash", "args": {"command": "ls src"}})
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", PROBE, event], capture_output=True, text=True, cwd=project,
                              env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stderr.splitlines()[-1]))
    loaded = set(runs[1]["modules"])
    assert {"cupcake_py.shell.walker", "tree_sitter._binding"} <= loaded  # the command was analysed
    # both bindings loaded directly (found by sys.meta_path, not importlib): neither package's __init__ ran
    assert not {"tree_sitter", "tree_sitter_bash", "pathlib", "typing", "importlib"} & loaded
    assert "subprocess" in loaded  # why signal is allowed here: signals ran
    assert not offenders(loaded, ALLOWED_WHEN_SHELL), offenders(loaded, ALLOWED_WHEN_SHELL)
