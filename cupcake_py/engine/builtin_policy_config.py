"""What each enabled builtin policy becomes: `input.builtin_config.<name>` and its builtin-policy signals.

The rulebook models (schema, defaults, validation) are the pydantic classes in
`cupcake_py.engine.rulebook` (one place); this module turns a validated model into what the
policy in `policies/builtins/<name>.rego` reads:

| builtin policy | input.builtin_config.<name> | builtin-policy signals (generated shell signals) |
| protected_paths | {message, paths (~ and $HOME expanded), home} | – |
| rulebook_security_guardrails | {message, protected_paths (+ the global config dir), home}; the evaluator adds state_paths and path_dirs per evaluation (engine/state_paths.py); ON unless `enabled: false` | – |
| git_block_no_verify | {message, exceptions} | – |
| git_pre_check | {checks: [{command, message, signal}]} | `__builtin_git_pre_check_<i>` (only for git commit/push/merge) |
| post_edit_check | {by_extension: {ext: {command, message, signal}}} | `__builtin_post_edit_check_<ext>` (only for files with that extension) |
| enforce_full_file_read | {message, max_lines} | – (uses the native `file.line_count`) |
| always_inject | {items: [{text} or {signal}], static_contexts} | `__builtin_always_inject_<i>` for file/command items |
| system_protection | {message, additional_paths (expanded), home} | – |
| sensitive_data_protection | {message, additional_patterns (expanded), home} | – |
| cupcake_exec_protection | {message, allowed_commands} | – |
| rate_limit | {message, limits: [{tools, max_calls, window_minutes, action}]} | – (reads `history`) |
| escalation | {message, max_denials, window_minutes, timeout_minutes} | – (reads `history`; a halt starts a timeout) |
| loop_guard | {message, max_repeats} | – (reads `history`) |

Builtins that can only be enabled in the global rulebook: GLOBAL_ONLY.
"""

from __future__ import annotations

from cupcake_py.core.userdirs import expand_home, global_config_dir, home_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GLOBAL_ONLY = frozenset({"system_protection", "sensitive_data_protection", "cupcake_exec_protection"})

# Which Bash commands make git_pre_check's checks worth running (the policy decides; this only
# saves running checks for unrelated commands).
# Option values may be quoted (`git -c user.name="A B" commit`).
GIT_OPERATION = (r"(^|[\s;&|('\"`])(\S*/)?git(\s+(-[Cc]\s+(\"[^\"]*\"|'[^']*'|[^\s\"'])+|--\S+))*"
                 r"\s+(commit|push|merge)(\s|$|['\";&|)])")


def _dump(model: Any) -> dict[str, Any]:
    out: dict[str, Any] = model.model_dump(mode="json", exclude={"enabled"}, exclude_none=True)
    return out


def policy_config(name: str, builtin: Any) -> dict[str, Any]:
    """input.builtin_config.<name> for an enabled builtin model (from rulebook.Builtins)."""
    cfg = _dump(builtin)
    home = home_dir()
    if name == "protected_paths":
        cfg["paths"] = [expand_home(p, home) for p in cfg["paths"]]
        cfg["home"] = home
    elif name == "rulebook_security_guardrails":
        paths = [expand_home(p, home) for p in cfg["protected_paths"]]
        glob = global_config_dir() + "/"
        cfg["protected_paths"] = paths + ([glob] if glob not in paths else [])
        cfg["home"] = home
    elif name == "system_protection":
        cfg["additional_paths"] = [expand_home(p, home) for p in cfg["additional_paths"]]
        cfg["home"] = home
    elif name == "sensitive_data_protection":
        cfg["additional_patterns"] = [expand_home(p, home) for p in cfg["additional_patterns"]]
        cfg["home"] = home
    elif name == "git_pre_check":
        cfg["checks"] = [{"command": c["command"], "message": c["message"], "signal": f"__builtin_git_pre_check_{i}"}
                         for i, c in enumerate(cfg["checks"])]
    elif name == "post_edit_check":
        cfg["by_extension"] = {ext: {"command": c["command"], "message": c["message"],
                                     "signal": f"__builtin_post_edit_check_{ext}"}
                               for ext, c in cfg["by_extension"].items()}
    elif name == "always_inject":
        items: list[dict[str, str]] = []
        for i, item in enumerate(cfg.pop("context")):
            items.append({"text": item} if isinstance(item, str) else {"signal": f"__builtin_always_inject_{i}"})
        cfg = {"items": items, "static_contexts": [it["text"] for it in items if "text" in it]}
    return cfg


def generated_signals(name: str, builtin: Any) -> dict[str, dict[str, Any]]:
    """Shell signals a builtin's configuration generates, all named `__builtin_<name>_…`.
    Spec keys: command, timeout_seconds, plus message / extension / command_pattern (when the
    signal is worth running: a file extension, a Bash command regex)."""
    out: dict[str, dict[str, Any]] = {}
    if name == "git_pre_check":
        for i, check in enumerate(builtin.checks):
            out[f"__builtin_git_pre_check_{i}"] = {"command": check.command, "timeout_seconds": check.timeout_seconds,
                                                  "message": check.message, "command_pattern": GIT_OPERATION}
    elif name == "post_edit_check":
        for ext, check in builtin.by_extension.items():
            out[f"__builtin_post_edit_check_{ext}"] = {"command": check.command,
                                                      "timeout_seconds": check.timeout_seconds,
                                                      "message": check.message, "extension": ext}
    elif name == "always_inject":
        for i, item in enumerate(builtin.context):
            if isinstance(item, str):
                continue
            if hasattr(item, "file"):
                import shlex

                out[f"__builtin_always_inject_{i}"] = {"command": f"cat -- {shlex.quote(item.file)}",
                                                      "timeout_seconds": 2.0}
            else:
                out[f"__builtin_always_inject_{i}"] = {"command": item.command,
                                                      "timeout_seconds": item.timeout_seconds}
    return out


def scope_errors(enabled: dict[str, Any], scope: str) -> list[str]:
    """Builtins enabled in a rulebook where they cannot be: the global-only ones in a project
    (the org tier, above the global one, may enable them too)."""
    if scope in ("global", "org"):
        return []
    return [f"builtin {n} can only be enabled in the global rulebook ($XDG_CONFIG_HOME/cupcake/rulebook.yml)"
            for n in sorted(enabled) if n in GLOBAL_ONLY]
