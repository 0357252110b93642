"""`cupcake init --harness NAME [--global]`: the files a new configuration starts with.

Project (`<dir>/`): `.cupcake/` (0700) with rulebook.yml (every builtin described) and its
JSON Schema rulebook.schema.json (for editors),
system/ (copies of the shipped aggregator and helpers), policies/<harness>/example.rego
(a policy that fires on `git push --force`), policies/<harness>/deletes_outside_project.rego
(asks before deletes outside the project), tests/<harness>/*_test.rego (their tests; kept
outside policies/ so the engine never compiles them into the bundle), signals/, and the
agent's hook: the OpenCode plugin at `.opencode/plugin/cupcake.js`, or cupcake's hooks merged
into `.claude/settings.json` (cupcake_py/harness/claude/install.py). When there is no global
configuration yet, the global one is set up too (`with_global`), because the protections a new
user assumes (system paths, .env and keys, running cupcake itself) are global-only builtins.
Global (`$XDG_CONFIG_HOME/cupcake`): rulebook.yml (global builtins), policies/<harness>/,
signals/, and the plugin at `$XDG_CONFIG_HOME/opencode/plugin/cupcake.js` or the hooks in
`~/.claude/settings.json`.

Safe defaults: the project rulebook enables rulebook_security_guardrails and
git_block_no_verify; the global one system_protection, sensitive_data_protection and
cupcake_exec_protection. `protections_summary` is the one screen `cupcake init` prints: what
is on, where, and how to relax it.

Idempotent: an existing file with the same content is left alone, a different one is
kept unless `force`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cupcake_py.engine.project import rego_files, shipped_policies_dir
from cupcake_py.harness import get
from cupcake_py.harness.files import FileAction, write_file

TEMPLATES = Path(__file__).resolve().parent / "templates"
PLUGIN = Path(__file__).resolve().parents[1] / "harness" / "opencode" / "plugin" / "cupcake.js"
GLOBAL_ONLY = ("system_protection", "sensitive_data_protection", "cupcake_exec_protection")
# Enabled in a fresh rulebook when the shipped policy exists: cupcake's own state, git hooks.
PROJECT_DEFAULTS = ("rulebook_security_guardrails", "git_block_no_verify")
# Template policies a fresh project gets (policies/opencode/<name>.rego, tests/opencode/<name>_test.rego).
PROJECT_POLICIES = ("example", "deletes_outside_project", "writes_outside_project")
GLOBAL_DEFAULTS = GLOBAL_ONLY

# name -> (what it does, example settings). Every builtin of engine.rulebook.Builtins is here.
BUILTINS: dict[str, tuple[str, str]] = {
    "protected_paths": (
        "halt: files no tool may write, delete or link (file tools, MCP tools, patches, and Bash by its analysed "
        "effects); reading stays allowed. Paths: exact, `dir/` prefix, relative `dir/` anywhere, `*` globs, `~` "
        "expanded. on_uncertain: ask|deny|allow when a command's targets are opaque (default ask).",
        'paths: ["/etc/", "secrets/", "*.pem"]\nmessage: "This path is read-only and cannot be modified"'),
    "rulebook_security_guardrails": (
        "halt (on unless `enabled: false`): cupcake's own state (config, caches, plugin, opencode.json, a "
        "`cupcake` on PATH) cannot be changed by any tool; .cupcake/ (and protected_paths) cannot be read either.",
        'protected_paths: [".cupcake/"]'),
    "git_block_no_verify": (
        "deny: git with hooks disabled in any spelling (--no-verify/-n, aliases, -c/--config-env/GIT_CONFIG_* "
        "core.hooksPath, HUSKY=0) and changes to .git/hooks or .git/config. `exceptions` lists commands allowed "
        "anyway.",
        "exceptions: []"),
    "git_pre_check": (
        "halt: before `git commit|push|merge`, run each check command (as a signal) and halt with its output "
        "when one fails.",
        'checks:\n  - command: "make lint"\n    message: "lint must pass before committing"'),
    "post_edit_check": (
        "PostToolUse: after edit/write/apply_patch of a file with the extension, run its check; a failure "
        "blocks with the output as feedback for the model, success adds context.",
        'by_extension:\n  py:\n    command: "ruff check"\n    message: "ruff found problems"'),
    "enforce_full_file_read": (
        "deny: `read` with offset/limit on files shorter than max_lines (make the agent read whole files).",
        "max_lines: 2000"),
    "always_inject": (
        "context: static text, files and command output added to every prompt's context.",
        'context:\n  - "Follow CONVENTIONS.md"\n  - {file: "CONVENTIONS.md"}\n  - {command: "git log -3 --oneline"}'),
    "rate_limit": (
        "ask/deny: more than max_calls calls of these tools within window_minutes in one session (reads the "
        "session history; records evaluations in the audit log).",
        "limits:\n  - {tools: [Bash], max_calls: 60, window_minutes: 1, action: ask}"),
    "escalation": (
        "halt: after max_denials denied calls within window_minutes, the session is in timeout for "
        "timeout_minutes; every call is halted with a reason saying when it ends.",
        "max_denials: 5\nwindow_minutes: 5\ntimeout_minutes: 10"),
    "loop_guard": (
        "ask: the same normalised call max_repeats times in a row.",
        "max_repeats: 3"),
    "system_protection": (
        "(global rulebook only) halt: system paths after resolution (/etc, /usr/lib via /lib, ...), shell start-up "
        "and persistence files (~/.bashrc, crontab, systemd user units, ...), rm -rf of / or ~, sudo/doas.",
        "additional_paths: []"),
    "sensitive_data_protection": (
        "(global rulebook only) deny: touching credentials (.env, keys, cloud configs) with any tool or any way "
        "of reading in Bash (cat, cp, tar, grep -r, git show REV:path, env dumps).",
        "additional_patterns: []"),
    "cupcake_exec_protection": (
        "(global rulebook only) halt: the agent running the cupcake binary itself.",
        "allowed_commands: []"),
}


@dataclass(frozen=True)
class Written:
    path: Path
    action: FileAction


def shipped_builtin_policies() -> set[str]:
    return {p.stem for p in rego_files(shipped_policies_dir() / "builtins") if not p.stem.endswith("_test")}


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def rulebook_text(scope: Literal["project", "global"]) -> str:
    available = shipped_builtin_policies()
    names = [n for n in BUILTINS if (n in GLOBAL_ONLY) == (scope == "global")]
    defaults = GLOBAL_DEFAULTS if scope == "global" else PROJECT_DEFAULTS
    blocks: list[str] = []
    enabled_any = False
    for name in names:
        what, example = BUILTINS[name]
        on = name in defaults and name in available
        enabled_any |= on
        lines = [_indent(what, "  # ")]
        if on:
            lines += [f"  {name}:", _indent(example, "    ")]
        else:
            lines += [f"  # {name}:", _indent(example, "  #   ")]
        blocks.append("\n".join(lines))
    body = "\n\n".join(blocks)
    text = (TEMPLATES / "rulebook.yml").read_text("utf-8")
    head = "builtins:" if enabled_any else "builtins: {}"
    text = text.replace("builtins:\n@@BUILTINS@@", f"{head}\n{body}")
    if scope == "global":
        text = text.replace("(.cupcake/rulebook.yml), created by `cupcake init` (shared by every harness)",
                            "(global: ~/.config/cupcake/rulebook.yml), created by `cupcake init --global`")
        text += ("\n# require_project_config: deny every tool call in a directory without a project .cupcake/\n"
                 "# (so hiding or removing a project's configuration never leaves the global policies alone).\n"
                 "# require_project_config: true\n")
    return text


def _write(path: Path, content: bytes, force: bool, mode: int = 0o644) -> Written:
    return Written(path, write_file(path, content, force, mode))


def _schema(config_dir: Path, force: bool) -> Written:
    """rulebook.schema.json next to the rulebook (its yaml-language-server line names it)."""
    from cupcake_py.authoring.schema import SCHEMA_FILE, schema_text

    return _write(config_dir / SCHEMA_FILE, schema_text().encode(), force)


def _private_dir(d: Path) -> None:
    existed = d.exists()
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not existed:
        d.chmod(0o700)


# What the example policy's comment says the tool input is, per harness.
_TOOL_INPUT_NOTE = {
    "opencode": "# input.tool_input is OpenCode's args for the tool (bash: command, timeout, workdir).",
    "claude": "# input.tool_input is Claude Code's tool_input (Bash: command, timeout, description);\n"
              "# input.tool_name is normalised (Bash, Edit, Write, Read, Task, mcp__server__tool, ...).",
}

# These hook-command harnesses (cupcake_py/harness/hook_agent.py) rename their agent's arguments to the shared names.
_SHARED_NOTE = ("# input.tool_input holds the shared argument names (Bash: command; Edit: file_path, old_string,\n"
                "# new_string); input.agent_tool_input the agent's own; input.tool_name is normalised (Bash, Edit, ...).")
_TOOL_INPUT_NOTE |= dict.fromkeys(("copilot", "factory", "cline", "cursor"), _SHARED_NOTE)

# Every other agent: its tool arguments as it sends them, the tool name normalised.
_GENERIC_NOTE = ("# input.tool_input is the agent's own tool arguments (shell: command); input.tool is its tool\n"
                 "# name, input.tool_name the normalised one (Bash, Edit, Write, Read, Task, ApplyPatch, ...).")


def template(name: str, harness: str) -> bytes:
    """A template with its harness-specific names (package path, policy dir, comments)."""
    text = (TEMPLATES / name).read_text("utf-8")
    if harness != "opencode":
        text = text.replace(_TOOL_INPUT_NOTE["opencode"], _TOOL_INPUT_NOTE.get(harness, _GENERIC_NOTE))
        text = text.replace("cupcake.policies.opencode.", f"cupcake.policies.{harness}.")
        text = text.replace("policies/opencode/", f"policies/{harness}/")
        text = text.replace("--harness opencode", f"--harness {harness}")
    return text.encode()


def _agent_hook(directory: Path | None, force: bool, harness: str) -> list[Written]:
    """The agent's side, installed by the harness itself (the OpenCode plugin file, or cupcake's
    hooks merged into Claude Code's settings)."""
    return [Written(Path(p), a) for p, a in get(harness).install(directory, force)]


def init_project(directory: Path, force: bool = False, harness: str = "opencode") -> list[Written]:
    cupcake = directory / ".cupcake"
    _private_dir(cupcake)
    out = [_write(cupcake / "rulebook.yml", rulebook_text("project").encode(), force), _schema(cupcake, force)]
    for f in rego_files(shipped_policies_dir() / "system"):
        out.append(_write(cupcake / "system" / f.name, f.read_bytes(), force))
    for name in PROJECT_POLICIES:
        out.append(_write(cupcake / "policies" / harness / f"{name}.rego", template(f"{name}.rego", harness), force))
        out.append(_write(cupcake / "tests" / harness / f"{name}_test.rego", template(f"{name}_test.rego", harness),
                          force))
    (cupcake / "signals").mkdir(exist_ok=True)
    out += _agent_hook(directory, force, harness)
    return out


def uninstall_hooks(directory: Path | None, harness: str) -> list[Written]:
    """Remove cupcake's hooks from the agent's settings; .cupcake/ stays."""
    return [Written(Path(p), a) for p, a in get(harness).uninstall(directory)]


def global_exists() -> bool:
    """Whether a global configuration exists (the engine's own test: more than the cache key)."""
    from cupcake_py.engine.project import ProjectError, find_global

    try:
        return find_global(None) is not None
    except ProjectError:
        return True  # something is there; init never overwrites what it cannot read


def config_home() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")


def init_global(force: bool = False, plugin: bool = True, harness: str = "opencode") -> list[Written]:
    """The global configuration; `plugin`: also the agent's global hook (not when a project
    init sets up the global config alongside its own hook: the agent would run both and
    evaluate every tool call twice)."""
    root = config_home() / "cupcake"
    _private_dir(root)
    out = [_write(root / "rulebook.yml", rulebook_text("global").encode(), force), _schema(root, force)]
    (root / "policies" / harness).mkdir(parents=True, exist_ok=True)
    (root / "signals").mkdir(exist_ok=True)
    if plugin:
        out += _agent_hook(None, force, harness)
    return out


# name -> (one line: what it stops, scope where it is enabled)
SUMMARY: dict[str, str] = {
    "rulebook_security_guardrails": "the agent can neither read nor change .cupcake/, the global config, "
                                    "cupcake's caches and key, the plugin, opencode.json or the cupcake executable",
    "git_block_no_verify": "git commit/push/merge --no-verify and switching git hooks off are denied",
    "protected_paths": "paths you list are read-only",
    "system_protection": "system paths (/etc, /usr, ~/.ssh, shell start-up files, …) and sudo are blocked",
    "sensitive_data_protection": ".env files, keys and credentials cannot be read",
    "cupcake_exec_protection": "the agent cannot run the cupcake binary itself",
}


def _enabled(rulebook: Path) -> set[str] | None:
    from cupcake_py.core.errors import CupcakeError
    from cupcake_py.engine.rulebook import load_rulebook

    try:
        return set(load_rulebook(rulebook).builtins.enabled())
    except CupcakeError:
        return None


def protections_summary(directory: Path | None, harness: str = "opencode") -> str:
    """One screen: which protections are on (project and global), and how to relax each kind."""
    lines = ["Protections in force:"]
    glob = config_home() / "cupcake" / "rulebook.yml"
    scopes: list[tuple[str, Path]] = []
    if directory is not None:
        scopes.append(("project", directory / ".cupcake" / "rulebook.yml"))
    scopes.append(("global", glob))
    on: dict[str, str] = {}
    for scope, rulebook in scopes:
        enabled = _enabled(rulebook) if (scope == "project" or global_exists()) else set()
        if enabled is None:
            lines.append(f"  (!) {rulebook} does not load: run `cupcake verify --harness {harness}`")
            continue
        for name in enabled:
            on.setdefault(name, scope)
    for name, what in SUMMARY.items():
        mark = f"ON  ({on[name]})" if name in on else "off"
        lines.append(f"  {mark:<13} {name}: {what}")
    if directory is not None:
        policies = directory / ".cupcake" / "policies" / harness
        if (policies / "deletes_outside_project.rego").is_file():
            lines.append(f"  {'ON  (project)':<13} deletes outside the project ask first "
                         f"(policies/{harness}/deletes_outside_project.rego)")
        if (policies / "writes_outside_project.rego").is_file():
            lines.append(f"  {'ON  (project)':<13} writes outside the project and the sandbox's writable roots ask "
                         f"first (policies/{harness}/writes_outside_project.rego)")
        lines += sandbox_summary(directory / ".cupcake" / "rulebook.yml")
    if not global_exists():
        lines.append("  (!) no global configuration: system paths, .env/keys and the cupcake binary are NOT protected;")
        lines.append(f"      run `cupcake init --harness {harness} --global` to set them up")
    lines += [
        "To relax: `enabled: false` under `builtins:` in .cupcake/rulebook.yml (project) or",
        f"  {glob} (global); delete or edit a policy file in .cupcake/policies/{harness}/.",
        "  Switching rulebook_security_guardrails off prints a warning on every evaluation.",
    ]
    return "\n".join(lines) + "\n"


def sandbox_summary(rulebook: Path) -> list[str]:
    """The kernel floor's lines of the summary: on and working, on but UNAVAILABLE (loud), or off."""
    from cupcake_py.core.errors import CupcakeError
    from cupcake_py.engine.rulebook import load_rulebook
    from cupcake_py.sandbox.bwrap import SandboxError, locate, probe, usable_mounter

    try:
        settings = load_rulebook(rulebook).sandbox
    except CupcakeError:
        return []
    if settings is None or not settings.enabled:
        return [f"  {'off':<13} sandbox: Bash commands run without the kernel floor (`sandbox: {{enabled: true}}`)"]
    bwrap = locate(settings.bwrap)
    ok, why = probe(bwrap) if bwrap is not None else (False, "bubblewrap is not installed (apt-get install bubblewrap)")
    if ok and bwrap is not None:
        try:
            mounter = usable_mounter(bwrap)
        except SandboxError:
            mounter = None
        how = ("its mounts made by cupcake's mounter" if mounter else
               "its mounts made by bubblewrap: cupcake's mounter does not run here (slower, same profile)")
        return [f"  {'ON  (project)':<13} sandbox: every Bash command runs in bubblewrap ({bwrap}; {how}); "
                "cupcake's state, the agents' config and git hooks read-only, secrets hidden, only the project, "
                "temp dirs and tool caches writable"]
    return ["  (!) SANDBOX UNAVAILABLE: the rulebook enables the sandbox but it cannot run here:",
            f"      {why}",
            "      Bash commands run WITHOUT the kernel floor; uncertain commands are asked (input.sandbox.applies "
            "is false)"]


def system_drift(cupcake_dir: Path) -> list[str]:
    """Project system/ files that differ from (or are missing in) the shipped version."""
    own = cupcake_dir / "system"
    if not (own / "evaluate.rego").is_file():
        return []
    out = []
    for f in rego_files(shipped_policies_dir() / "system"):
        mine = own / f.name
        if not mine.is_file():
            out.append(f"system/{f.name} is missing (the shipped builtins may need it)")
        elif mine.read_bytes() != f.read_bytes():
            out.append(f"system/{f.name} differs from the shipped version")
    return out
