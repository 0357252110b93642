"""Harness-neutral enrichment of the policy input (issues 14, 15 and 17).

- `tool_call.enrich_tool_call(input, hints, script_inspection=...)` (module `tool_call`): what a
  normalised tool call would touch (resolved file path, tool_paths, patch operations, Bash
  analysis and `shell`), for every harness; harnesses normalise their event first (tool_name,
  tool_input, cwd) and name their path/workdir/patch arguments in `PathHints`.

- `tool_paths(tool_name, args, cwd)` (module `tool_paths`): every path a tool call names,
  as `input.tool_paths` entries `{path, original, arg, access}` (docs/input.md). Pure apart
  from realpath / existence checks; never raises on odd argument values.
- `for_policies(policy_input)`: the engine-side steps, once builtin_config is attached:
  `add_link_identities`, `add_secrets_below` (module `secrets_below`: secret-looking files
  inside directories a Bash command or a file search reads, for sensitive_data_protection), then
  `add_git_history`.
- `add_git_history(policy_input)` (module `git_history`): when a Bash command prints content
  from a repository's history, the secret-looking paths it tracks or has tracked (a cached git
  signal), for sensitive_data_protection.
- `add_search_reads(policy_input)` (module `search_reads`): the secret-looking files a file
  tool's directory search (Grep, Glob, List, a directory Read, MCP search tools) would read.
- `add_link_identities(policy_input)` (module `hardlinks`): after `builtin_config` is known,
  an effect path or tool path that is a hard link (st_nlink > 1) or a symlink to a
  protected/state path gets that protected path added next to it. Bounded file-system work;
  a path that cannot be stat-ed is simply not an identity (the policies see it under its own
  name, which is what a shell would touch).

Both are called from small call sites: the harness preprocessor (tool_paths) and the engine
evaluator (link identities, where builtin_config is attached).
"""

from __future__ import annotations

from cupcake_py.enrich.hardlinks import add_link_identities
from cupcake_py.enrich.secrets_below import add_secrets_below
from cupcake_py.enrich.tool_paths import tool_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["add_link_identities", "add_secrets_below", "for_policies", "tool_paths"]


def for_policies(policy_input: dict[str, Any]) -> None:
    """Engine-side enrichment (needs builtin_config): link identities, secrets below reads."""
    add_link_identities(policy_input)
    add_secrets_below(policy_input)
    if policy_input.get("tool_name") != "Bash" and "sensitive_data_protection" in (
            policy_input.get("builtin_config") or {}):
        from cupcake_py.enrich.search_reads import add_search_reads

        add_search_reads(policy_input)
    if _prints_history(policy_input):  # git runs only for commands printing history
        from cupcake_py.enrich.git_history import add_git_history

        add_git_history(policy_input)


def _prints_history(policy_input: dict[str, Any]) -> bool:
    shell = policy_input.get("shell")
    return isinstance(shell, dict) and any(isinstance(g, dict) and g.get("history") is True
                                           for g in shell.get("git") or [])
