"""`cupcake protect` and `cupcake verify --all`: every registered harness (cupcake_py/harness/__init__.py
MODULES, one row per agent) at once.

What each harness value may offer (all optional; a harness without them still takes part with defaults):
- `binaries`: executables that mean the agent is installed (default: its name); `config_home()`: the
  agent's user config dir (an existing one also means installed);
- `configured_hooks(project)`: [(event, command, hook timeout in seconds)] of cupcake's hooks in the agent's
  settings for `project` (None: the user's global settings), exactly as written;
- `canary(command, cwd)`: a pre-tool shell event in the agent's own format (default: Claude Code's shape,
  which Codex, Qwen Code and other Claude-compatible agents read);
- `capabilities`: what the agent honours (can_rewrite_shell, can_ask, subagent_calls_hooked);
- `hook_problems(project)`: what the agent itself would do wrong with the configured hooks (Codex: hooks
  it does not trust, which it skips silently);
- `setup_notes(project)`: the manual steps to print when something is wrong.

`protect()`: for every detected agent, installs cupcake's hooks in the agent's USER settings (every
project is covered; a project's own `.cupcake/` adds its policies) and creates the global configuration
(system paths, secrets, the cupcake binary, and git_block_no_verify) when there is none. Returns rows for
one screen.

`verify_all(project)`: for every registered agent with cupcake hooks configured (project or user settings),
runs each configured pre-tool hook command EXACTLY as written (through `sh -c`, in the project, with the
caller's environment) on three non-executing canary events (a delete of cupcake's own config, a secret read,
`git commit --no-verify`; cupcake only evaluates them, nothing runs), and reads the answer as the agent
would: blocked (exit 2, or a deny the agent honours) or not. It also checks that cupcake's own deadline
(`--hard-timeout`) lies below the hook timeout written, and reports the agent's capabilities and warnings
(hook trust, subagents, shell rewriting). `ok` is False when a hook could not run or a canary was not
blocked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cupcake_py.harness import NAMES, get

CANARIES = (
    ("protected-delete", "rm -rf .cupcake"),
    ("secret-read", "cat .env"),
    ("no-verify", "git commit --no-verify -m canary"),
)
CANARY_TIMEOUT_S = 90
# Added to a global rulebook `cupcake protect` creates: --no-verify is one of verify's canaries, and with only
# global hooks (every project covered) the project builtin that blocks it must be on globally too.
PROTECT_BUILTINS = "  # added by `cupcake protect`: no --no-verify, git hooks stay on, in every project\n  git_block_no_verify: {}"
HARD_TIMEOUT = re.compile(r"--hard-timeout[ =]([0-9.]+)")


@dataclass
class Canary:
    name: str
    command: str
    blocked: bool
    exit: int | None
    reason: str


@dataclass
class HookCheck:
    scope: str  # project | global
    event: str
    command: str
    hook_timeout_s: float | None
    cupcake_deadline_s: float | None
    canaries: list[Canary] = field(default_factory=list)


@dataclass
class AgentReport:
    agent: str
    installed: bool
    capabilities: dict[str, bool] | None
    hooks: list[HookCheck] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _capabilities(h: Any) -> dict[str, bool] | None:
    caps = getattr(h, "capabilities", None)
    return {str(k): bool(v) for k, v in caps.items()} if isinstance(caps, dict) else None


def installed(name: str) -> bool:
    h = get(name)
    for exe in getattr(h, "binaries", (name,)):
        if shutil.which(exe):
            return True
    home = getattr(h, "config_home", None)
    return bool(home is not None and Path(home()).is_dir())


def canary_event(h: Any, command: str, cwd: str) -> dict[str, Any]:
    make = getattr(h, "canary", None)
    if make is not None:
        event: dict[str, Any] = make(command, cwd)
        return event
    return {"hook_event_name": "PreToolUse", "session_id": "cupcake-verify-canary", "cwd": cwd,
            "tool_name": "Bash", "tool_input": {"command": command}}


# The deny forms of agents with their own answer vocabulary: (key, value, reason key). Copilot CLI's top-level
# permissionDecision, Cline's cancel (it ends the task; Cline ignores exit codes), Cursor's permission.
OWN_DENIES = (("permissionDecision", "deny", "permissionDecisionReason"), ("cancel", True, "errorMessage"),
              ("permission", "deny", "agent_message"))


def blocks(stdout: str, exit_code: int) -> tuple[bool, str]:
    """Whether an agent reading this hook answer would block the call, and the reason it would show. Exit 2
    blocks in every supported agent; otherwise one of the deny forms they honour (a Claude-style deny needs a
    reason: Codex runs the tool on a deny without one)."""
    if exit_code == 2:
        return True, stdout.strip()[:300]
    try:
        out = json.loads(stdout) if stdout.strip() else {}
    except ValueError:
        return False, "the hook printed something that is not JSON (agents then run the tool)"
    if not isinstance(out, dict):
        return False, "the hook's answer is not a JSON object"
    raw = out.get("hookSpecificOutput")
    specific: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if specific.get("permissionDecision") == "deny" and str(specific.get("permissionDecisionReason") or "").strip():
        return True, str(specific["permissionDecisionReason"])
    if out.get("decision") in ("deny", "block") and str(out.get("reason") or "").strip():
        return True, str(out["reason"])
    for key, value, reason_key in OWN_DENIES:
        if out.get(key) == value:
            return True, str(out.get(reason_key) or "")
    return False, json.dumps(out)[:300]


def _run_hook(command: str, event: dict[str, Any], cwd: Path) -> tuple[str, int | None, str]:
    try:
        proc = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(event).encode(), capture_output=True,
                              cwd=cwd, timeout=CANARY_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "", None, f"the hook did not answer in {CANARY_TIMEOUT_S}s"
    return proc.stdout.decode("utf-8", "replace"), proc.returncode, proc.stderr.decode("utf-8", "replace")


def _hooks(h: Any, project: Path | None) -> list[tuple[str, str, str, float | None]]:
    """(scope, event, command, timeout) of cupcake's configured pre-tool hooks."""
    listing = getattr(h, "configured_hooks", None)
    out: list[tuple[str, str, str, float | None]] = []
    if listing is None:
        return out
    for scope, where in (("project", project), ("global", None)):
        if scope == "project" and project is None:
            continue
        for event, command, timeout in listing(where):
            if event in ("PreToolUse", "BeforeTool", "preToolUse", "beforeShellExecution"):
                out.append((scope, event, command, timeout))
    return out


def verify_agent(name: str, project: Path | None) -> AgentReport:
    h = get(name)
    report = AgentReport(name, installed(name), _capabilities(h))
    hooks = _hooks(h, project)
    if getattr(h, "configured_hooks", None) is None:
        if not report.installed:
            report.warnings.append("not installed, and this harness does not list its hook commands: not checked")
            return report
        report.warnings.append("this harness does not list its hook commands: checked `cupcake eval --harness "
                               f"{name}` directly")
        hooks = [("direct", "PreToolUse", f"cupcake eval --harness {name}", None)]
    if not hooks:
        report.warnings.append(f"no cupcake hooks configured (run `cupcake init --harness {name}` or `cupcake protect`)")
        return report
    cwd = project or Path.cwd()
    for scope, event, command, timeout in hooks:
        m = HARD_TIMEOUT.search(command)
        check = HookCheck(scope, event, command, timeout, float(m[1]) if m else None)
        if timeout is not None and (check.cupcake_deadline_s is None or check.cupcake_deadline_s >= timeout):
            report.problems.append(f"{scope} {event} hook: cupcake's deadline is not below the hook timeout "
                                   f"({timeout:g}s): the agent would give up and run the tool")
        for canary_name, canary_cmd in CANARIES:
            probe = canary_event(h, canary_cmd, str(cwd))
            # a session of its own per canary: a halting canary must not make the next one "halted" too
            probe["session_id"] = f"cupcake-verify-{canary_name}-{os.getpid()}-{os.urandom(4).hex()}"
            stdout, code, stderr = _run_hook(command, probe, cwd)
            ok, reason = blocks(stdout, code) if code is not None else (False, stderr)
            if code == 2 and stderr.strip():
                reason = stderr.strip().splitlines()[-1][:300]
                if "invalid" in reason and "event" in reason:  # blocked only because the canary was malformed
                    ok, reason = False, f"the canary is not in this agent's event format ({reason})"
            check.canaries.append(Canary(canary_name, canary_cmd, ok, code, reason))
            if not ok:
                report.problems.append(f"{scope} {event} hook: the {canary_name} canary (`{canary_cmd}`) was not "
                                       f"blocked: {reason}")
        report.hooks.append(check)
    caps = report.capabilities or {}
    if caps and not caps.get("can_rewrite_shell", True):
        report.warnings.append("cannot rewrite shell commands: the sandbox floor cannot apply; policies see "
                               "input.harness_capabilities.can_rewrite_shell = false and should ask or deny instead")
    if caps and not caps.get("subagent_calls_hooked", True):
        report.warnings.append("subagents' tool calls are NOT hooked by this agent: policies do not see them")
    if caps and not caps.get("can_deny_tool", True):
        report.warnings.append("cannot refuse a single call: a deny cancels the whole task (the model gets no reason)")
    if caps and not caps.get("can_ask", True):
        report.warnings.append("cannot ask: a policy's ask becomes the ask fallback (deny unless "
                               "CUPCAKE_ASK_FALLBACK=allow)")
    agent_problems = getattr(h, "hook_problems", None)
    if agent_problems is not None:
        for scope, where in (("project", project), ("global", None)):
            if scope == "global" or project is not None:
                report.problems += agent_problems(where)
    notes = getattr(h, "setup_notes", None)
    if notes is not None and report.problems:
        report.warnings += notes(project)
    return report


def verify_all(project: Path | None) -> list[AgentReport]:
    return [verify_agent(name, project) for name in NAMES]


def reports_json(reports: list[AgentReport]) -> str:
    return json.dumps({"ok": all(r.ok for r in reports),
                       "agents": [{**asdict(r), "ok": r.ok} for r in reports]}, indent=2) + "\n"


def reports_text(reports: list[AgentReport]) -> str:
    lines = []
    for r in reports:
        state = "ok" if r.ok and r.hooks else ("FAIL" if not r.ok else "--")
        caps = r.capabilities or {}
        cap = ", ".join(f"{k}={'yes' if v else 'no'}" for k, v in caps.items())
        lines.append(f"[{state}] {r.agent}{'' if r.installed else ' (not installed)'}{'; ' + cap if cap else ''}")
        for hk in r.hooks:
            marks = " ".join(f"{c.name}:{'blocked' if c.blocked else 'ALLOWED'}" for c in hk.canaries)
            lines.append(f"    {hk.scope} {hk.event}: {marks}")
        lines += [f"    (!) {p}" for p in r.problems]
        lines += [f"    note: {w}" for w in r.warnings]
    ok = all(r.ok for r in reports)
    lines.append("every configured agent blocks the canaries" if ok else "NOT every configured agent is protected")
    return "\n".join(lines) + "\n"


def protect(force: bool = False) -> tuple[list[str], list[str]]:
    """(lines of what was set up, agents detected). Installs cupcake's hooks in the user settings of every
    detected agent and the global configuration when there is none."""
    from cupcake_py.authoring import scaffold

    lines = []
    if not scaffold.global_exists():
        for w in scaffold.init_global(force, plugin=False):
            lines.append(f"{w.action:<11} {w.path}")
            if w.path.name == "rulebook.yml" and w.action == "created":
                # git hooks must run in every project too (a project builtin that also works globally); appended,
                # the line lands in the `builtins:` mapping, the last key of the global rulebook
                with w.path.open("a", encoding="utf-8") as f:
                    f.write(f"{PROTECT_BUILTINS}\n")
                lines.append(f"{'enabled':<11} git_block_no_verify in {w.path}")
    found = [n for n in NAMES if installed(n)]
    for name in found:
        h = get(name)
        for path, action in h.install(None, force):
            lines.append(f"{action:<11} {path}  ({name})")
        notes = getattr(h, "setup_notes", None)
        lines += [f"note        {n}" for n in (notes(None) if notes else [])]
    return lines, found


def home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())
