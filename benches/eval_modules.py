"""How many modules `cupcake eval --harness X` loads, per hook-command harness, on a routed pre-tool shell
event (the harness's verify canary, `ls -la`) and on a routing miss (SessionEnd), in a copy of the example
project every harness shares (harness/examples/project). Counts, not timing: the import-diet tests
(tests/engine/test_import_diet*.py) guard which modules; this prints how many, to compare two checkouts.

    .venv/bin/python benches/eval_modules.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cupcake_py import harness as registry  # noqa: E402
from cupcake_py.harness.examples import isolated_env, project_dir  # noqa: E402

PROBE = """
import io, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from cupcake_py.app.fast_eval import main
code = main(["--harness", sys.argv[2]])
modules = sorted(sys.modules)  # before the probe's own json import
sys.stdout.flush()
import json
print(json.dumps({"code": code, "modules": modules}), file=sys.stderr)
"""
# the agent's event name where its stdin lacks it (the hook sets CUPCAKE_HOOK_EVENT)
HOOK_ENV = {"copilot": ("preToolUse", "sessionEnd"), "cline": ("PreToolUse", "SessionShutdown")}
MISSES = {"copilot": {"sessionId": "s", "timestamp": 1, "cwd": "$P", "reason": "complete"},
          "cline": {"taskId": "t", "workspaceRoots": ["$P"], "hookName": "session_shutdown"},
          "cursor": {"conversation_id": "c", "workspace_roots": ["$P"], "hook_event_name": "sessionEnd"},
          "factory": {"session_id": "s", "cwd": "$P", "hook_event_name": "SessionEnd", "reason": "other"}}
CLAUDE_SHAPED_MISS = {"hook_event_name": "SessionEnd", "session_id": "s", "cwd": "$P", "reason": "exit"}


def modules(agent: str, event: dict[str, object], project: Path, env: dict[str, str]) -> list[str]:
    for _ in range(2):  # the first run builds the bundle; the second is a cold evaluation
        proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(event), agent], capture_output=True,
                              text=True, cwd=project, env=env, timeout=600)
    report = json.loads(proc.stderr.splitlines()[-1])
    found: list[str] = report["modules"]
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, help="write {agent: {routed, miss: [modules]}} here")
    args = ap.parse_args()
    out: dict[str, dict[str, list[str]]] = {}
    for agent in (n for n in registry.NAMES if n not in ("opencode", "claude")):
        with tempfile.TemporaryDirectory(prefix="cupcake-modules-") as tmp:
            root = Path(tmp)
            project = root / "project"
            shutil.copytree(project_dir(agent), project, symlinks=True)
            (root / "config").mkdir()
            env = isolated_env(root / "cache", root / "config")
            routed_env, miss_env = HOOK_ENV.get(agent, ("", ""))
            routed = registry.get(agent).canary("ls -la", str(project))  # type: ignore[attr-defined]
            miss = json.loads(json.dumps(MISSES.get(agent, CLAUDE_SHAPED_MISS)).replace("$P", str(project)))
            out[agent] = {
                "routed": modules(agent, routed, project, {**env, "CUPCAKE_HOOK_EVENT": routed_env} if routed_env else env),
                "miss": modules(agent, miss, project, {**env, "CUPCAKE_HOOK_EVENT": miss_env} if miss_env else env)}
        print(f"{agent:8} routed {len(out[agent]['routed']):4}  miss {len(out[agent]['miss']):4}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
