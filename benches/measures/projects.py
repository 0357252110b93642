"""Bench projects: generated Cupcake-style policies, a rulebook with the shipped builtins on,
the global config (global-only builtins), git repositories for signals, and the events.

Generated policy i has the kind KINDS[i % 5]; every kind routes differently, so a project of
N policies has about 3/5 of them routed to a PreToolUse Bash event (Bash and event-only
kinds), like a real rulebook that guards several tools. None of them fires on the typical
event (most tool calls are allowed), so every routed rule is evaluated in full.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from measures.common import Context

_HEAD = """# METADATA
# title: generated bench policy {i} ({kind})
# custom:
#   routing:
#     required_events: ["PreToolUse"]
{tools}{signals}package cupcake.policies.opencode.bench.p{i:04d}

import rego.v1
"""

_BODIES = {
    "bash_deny": """
deny contains decision if {{
	regex.match(`(^|[\\s;&|])tool{i}\\s+(-f|--force)(\\s|$)`, input.tool_input.command)
	decision := {{
		"rule_id": "BENCH-{i}-FORCE",
		"severity": "HIGH",
		"reason": sprintf("tool{i} --force is not allowed here: %s", [input.tool_input.command]),
	}}
}}

halt contains {{"rule_id": "BENCH-{i}-WIPE", "severity": "CRITICAL", "reason": "wiping area {i} is never allowed"}} if {{
	some word in split(input.tool_input.command, " ")
	word in {{"wipe{i}", "shred{i}", "--purge-area-{i}"}}
}}
""",
    "bash_ask": """
ask contains {{
	"rule_id": "BENCH-{i}-DEPLOY",
	"severity": "MEDIUM",
	"reason": sprintf("deploying service %d needs a human decision", [{i}]),
}} if {{
	contains(input.tool_input.command, "deploy-{i} ")
	not startswith(input.tool_input.command, "echo ")
}}
""",
    "file_write": """
protected := ["/srv/app{i}/", "config/env{i}/", "/etc/bench{i}/"]

deny contains decision if {{
	some prefix in protected
	contains(input.resolved_file_path, prefix)
	decision := {{
		"rule_id": "BENCH-{i}-WRITE",
		"severity": "HIGH",
		"reason": concat(" ", ["writing under", prefix, "is not allowed"]),
	}}
}}
""",
    "file_read": """
deny contains {{"rule_id": "BENCH-{i}-READ", "severity": "HIGH", "reason": "secret {i} files are private"}} if {{
	endswith(input.resolved_file_path, ".secret{i}")
}}

deny contains {{"rule_id": "BENCH-{i}-KEY", "severity": "HIGH", "reason": "key files are private"}} if {{
	regex.match(`(^|/)key{i}\\.(pem|der)$`, input.resolved_file_path)
}}
""",
    "any_tool": """
add_context contains sprintf("area %d: run the checks of team %d before finishing", [{i}, {i}]) if {{
	input.tool_name == "Task"
	contains(lower(input.tool_input.prompt), "area{i}")
}}

block contains {{"rule_id": "BENCH-{i}-AGENT", "severity": "HIGH", "reason": "agent {i} is retired"}} if {{
	input.agent == "retired-agent-{i}"
}}
""",
}

KINDS = ("bash_deny", "bash_ask", "file_write", "file_read", "any_tool")
_TOOLS = {"bash_deny": ["Bash"], "bash_ask": ["Bash"], "file_write": ["Edit", "Write", "ApplyPatch"],
          "file_read": ["Read"], "any_tool": None}

SIGNAL_POLICY = """# METADATA
# title: release branches (git signals)
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: [{signals}]
package cupcake.policies.opencode.bench.release

import rego.v1

deny contains {{"rule_id": "BENCH-RELEASE", "severity": "HIGH", "reason": "no commits on release branches"}} if {{
	startswith({branch}, "release/")
	regex.match(`(^|[\\s;&|])git\\s+commit(\\s|$)`, input.tool_input.command)
}}

ask contains {{"rule_id": "BENCH-DIRTY", "severity": "MEDIUM", "reason": "the work tree has changes; push anyway?"}} if {{
	{dirty}
	contains(input.tool_input.command, "git push")
}}
"""

# shell signals (rulebook) vs the engine's in-process git.* signals
SHELL_SIGNALS = {"git_branch": "git rev-parse --abbrev-ref HEAD", "git_status": "git status --porcelain"}
SIGNAL_FLAVOURS = {
    "shell": {"signals": '"git_branch", "git_status"', "branch": "input.signals.git_branch",
              "dirty": 'input.signals.git_status != ""'},
    "native": {"signals": '"git.branch", "git.is_dirty"', "branch": 'input.signals["git.branch"]',
               "dirty": 'input.signals["git.is_dirty"]'},
}

# rulebook entries of the shipped builtins: project scope, then global-only
PROJECT_BUILTINS = {
    "protected_paths": '{paths: ["/etc/", "secrets/", "*.pem"]}',
    "rulebook_security_guardrails": "{}",
    "git_block_no_verify": "{}",
    "git_pre_check": '{checks: [{command: "true", message: "checks must pass before committing"}]}',
    "post_edit_check": '{by_extension: {py: {command: "true", message: "python checks failed"}}}',
    "enforce_full_file_read": "{max_lines: 2000}",
    "always_inject": '{context: ["Follow the conventions of this repository."]}',
}
GLOBAL_BUILTINS = {"system_protection": "{}", "sensitive_data_protection": "{}", "cupcake_exec_protection": "{}"}


def builtins_yaml(entries: dict[str, str], without: frozenset[str] = frozenset()) -> str:
    return "builtins:\n" + "".join(f"  {k}: {v}\n" for k, v in entries.items() if k not in without)


TYPICAL_COMMAND = "ls -la src && grep -rn TODO src | head -20"


def policy_source(i: int) -> str:
    kind = KINDS[i % len(KINDS)]
    tools = _TOOLS[kind]
    head = _HEAD.format(i=i, kind=kind, tools=f"#     required_tools: {json.dumps(tools)}\n" if tools else "",
                        signals="")
    return head + _BODIES[kind].format(i=i)


def routed_count(n: int) -> int:
    """Generated policies (of n) that a PreToolUse Bash event routes to."""
    return sum(1 for i in range(n) if _TOOLS[KINDS[i % len(KINDS)]] in (["Bash"], None))


def write_policies(policies_dir: Path, n: int) -> None:
    d = policies_dir / "bench"
    d.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (d / f"p{i:04d}.rego").write_text(policy_source(i))


def make_project(root: Path, n: int, *, builtins: bool = True, signals: str | None = None,
                 git: bool = False, without: frozenset[str] = frozenset()) -> Path:
    """A project dir with .cupcake/ holding n generated policies; `builtins` enables the shipped
    project builtins (except `without`); `signals` ("shell" | "native") adds the git-signal policy; `git` makes the
    project a git repository with one commit and one modified file."""
    root.mkdir(parents=True, exist_ok=True)
    cup = root / ".cupcake"
    pol = cup / "policies" / "opencode"
    pol.mkdir(parents=True, exist_ok=True)
    write_policies(pol, n)
    write_rulebook(cup, builtins=builtins, signals=signals, without=without)
    if signals is not None:
        (pol / "bench" / "release.rego").write_text(SIGNAL_POLICY.format(**SIGNAL_FLAVOURS[signals]))
    src = root / "src"
    src.mkdir(exist_ok=True)
    (src / "app.py").write_text("# TODO: bench\nprint('hello')\n")
    if git:
        run = lambda *a: subprocess.run(["git", *a], cwd=root, check=True, capture_output=True)  # noqa: E731
        run("init", "-q", "-b", "main")
        run("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "add", "-A")
        run("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "bench")
        (src / "app.py").write_text("# TODO: bench\nprint('hello, world')\n")
    return root.resolve()


def write_rulebook(cupcake_dir: Path, *, builtins: bool, signals: str | None,
                   without: frozenset[str] = frozenset()) -> None:
    rulebook = builtins_yaml(PROJECT_BUILTINS, without) if builtins else ""
    if signals == "shell":
        rulebook += "signals:\n" + "".join(f"  {k}:\n    command: \"{v}\"\n    timeout_seconds: 5\n"
                                           for k, v in SHELL_SIGNALS.items())
    (cupcake_dir / "rulebook.yml").write_text(rulebook or "{}\n")


def make_global(config_home: Path, without: frozenset[str] = frozenset()) -> Path:
    """$XDG_CONFIG_HOME/cupcake with the global-only shipped builtins enabled (except `without`)."""
    d = config_home / "cupcake"
    (d / "policies" / "opencode").mkdir(parents=True, exist_ok=True)
    (d / "rulebook.yml").write_text(builtins_yaml(GLOBAL_BUILTINS, without))
    return d


def bash_event(project: Path, command: str = TYPICAL_COMMAND) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": "bench", "cwd": str(project), "tool": "bash",
            "args": {"command": command, "workdir": str(project)}, "call_id": "call_bench", "agent": "build"}


@dataclass
class Setup:
    """A ready bench project: warm bundle cache, its event, and the builtins that had to be left
    out because the engine could not build them (name -> the engine's reason)."""

    project: Path
    env: dict[str, str]
    event: dict[str, Any]
    response: Any
    dropped: dict[str, str] = field(default_factory=dict)

    @property
    def stdin(self) -> bytes:
        return json.dumps(self.event).encode()


_BUILTIN_FILE = re.compile(r"policies/builtins/(\w+)\.rego")
_KNOWN_DROPS: dict[str, str] = {}  # builtins already found unbuildable in this run (saves a failed build each)


def typical(ctx: Context, eval_cmd: list[str], n: int = 10, *, signals: str | None = None,
            git: bool = False) -> Setup:
    """The project of measures 1 and 2 (shared by the measures of one run): the shipped builtins
    (project + global) and n generated policies, bundle cache warm. A builtin whose bundle the
    engine refuses to build (e.g. a native signal it needs is not provided yet) is left out and
    reported; any other failure is Unavailable."""
    key = (n, signals, git)
    if key not in ctx.setups:
        ctx.setups[key] = _typical(ctx.work / f"typical-{n}-{signals}-{git}", ctx.env, eval_cmd, n, signals, git)
    return ctx.setups[key]  # type: ignore[no-any-return]


def _typical(work: Path, env: dict[str, str], eval_cmd: list[str], n: int, signals: str | None, git: bool) -> Setup:
    from measures.common import Unavailable, run_json

    project = make_project(work, n, signals=signals, git=git)
    config = Path(env["XDG_CONFIG_HOME"])
    dropped: dict[str, str] = dict(_KNOWN_DROPS)
    while True:
        without = frozenset(dropped)
        write_rulebook(project / ".cupcake", builtins=True, signals=signals, without=without)
        make_global(config, without)
        event = bash_event(project)
        resp = run_json(eval_cmd, json.dumps(event).encode(), project, env)
        reason = resp.get("reason", "") if isinstance(resp, dict) else ""
        if not reason.startswith("cupcake: "):
            return Setup(project, env, event, resp, dropped)
        m = _BUILTIN_FILE.search(reason)
        if m is None or m[1] in dropped:
            raise Unavailable(f"cupcake eval fails closed on the bench project: {reason}")
        dropped[m[1]] = _KNOWN_DROPS[m[1]] = reason.removeprefix("cupcake: ")
