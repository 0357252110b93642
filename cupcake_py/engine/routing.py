"""Routing from METADATA `custom.routing` blocks.

```yaml
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]      # which events reach the policy
#     required_tools: [Bash, "*"]        # optional; empty or "*" = every tool of those events
#     required_signals: [git_branch]     # signals gathered when the policy is routed
```
Keys: `Event` for policies that take every tool of the event (no tools, or `"*"`), and
`Event:Tool` for the rest. Lookup of (event, tool) = `Event` ∪ `Event:Tool`. A policy
package with decision rules (halt, deny, block, ask, modify, add_context) must have a
routing block with at least one event; the engine keeps only the decisions of the routed
packages, so routing really decides which policies can answer.
"""

from __future__ import annotations

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

log = LazyLogger(__name__)

VERB_RULES = frozenset({"halt", "deny", "block", "ask", "modify", "add_context", "sandbox"})  # sandbox: docs/sandbox.md
# Every hook_event_name some harness sends (OpenCode: the first three; Claude Code: all of them).
KNOWN_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PermissionRequest", "PostToolUseFailure", "UserPromptSubmit",
                          "SessionStart", "Stop", "SubagentStop", "PreCompact", "SessionEnd", "Notification"})
POLICY_ROOTS = ("cupcake.policies.", "cupcake.global.policies.")
BUILTIN_ROOTS = ("cupcake.policies.builtins.", "cupcake.global.policies.builtins.")


class RoutingError(CupcakeError):
    pass


class PolicyRoute(Record):
    __slots__ = ("package", "file", "events", "tools", "signals", "builtin")
    package: str
    file: str
    events: list[str]
    tools: list[str]
    signals: list[str]
    builtin: str | None

    def __init__(self, package: str, file: str, events: list[str] | None = None, tools: list[str] | None = None,
                 signals: list[str] | None = None, builtin: str | None = None) -> None:
        self._fill(package, file, [] if events is None else events, [] if tools is None else tools,
                   [] if signals is None else signals, builtin)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "events": self.events, "tools": self.tools, "signals": self.signals,
                "builtin": self.builtin}


def _strings(block: dict[str, Any], key: str, where: str) -> list[str]:
    v = block.get(key, [])
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        raise RoutingError(f"{where}: custom.routing.{key} must be a list of non-empty strings")
    return list(v)


def builtin_name(package: str) -> str | None:
    for root in BUILTIN_ROOTS:
        if package.startswith(root):
            return package[len(root):].split(".")[0]
    return None


def route_of_module(module: Any, file: str) -> PolicyRoute | None:
    """The routing of one parsed module (`cupcake_py.rego.ast.Module`); None for modules
    that need none (system packages, helper packages without decision rules)."""
    package = module.package.dotted()
    if package == "cupcake.system" or package.startswith("cupcake.system.") or package.startswith("cupcake.global.system"):
        return None
    verbs = sorted({r.head.name for r in module.rules} & VERB_RULES)
    blocks = [(a, a.routing()) for a in module.annotations if a.routing()]
    loc = module.package.location
    where = f"{loc}" if loc.file else file
    if not verbs:
        return None
    if not package.startswith(POLICY_ROOTS):
        raise RoutingError(f"{where}: package {package} defines {', '.join(verbs)} but is outside "
                           "cupcake.policies, so its decisions would never be collected")
    if not blocks:
        raise RoutingError(f"{where}: policy {package} has no METADATA block with custom.routing "
                           "(add required_events, e.g. [PreToolUse])")
    route = PolicyRoute(package, file, builtin=builtin_name(package))
    for ann, block in blocks:
        bwhere = str(ann.location) if ann.location is not None else where
        unknown = set(block) - {"required_events", "required_tools", "required_signals"}
        if unknown:
            raise RoutingError(f"{bwhere}: unknown custom.routing keys: {', '.join(sorted(unknown))}")
        events = _strings(block, "required_events", bwhere)
        tools = _strings(block, "required_tools", bwhere)
        if not events:
            raise RoutingError(f"{bwhere}: policy {package} has custom.routing without required_events")
        for e in events:
            if e not in KNOWN_EVENTS:
                log.warning("%s: event %s is never sent by any harness (known: %s)", bwhere, e,
                            ", ".join(sorted(KNOWN_EVENTS)))
        route.events += [e for e in events if e not in route.events]
        route.tools += [t for t in tools if t not in route.tools]
        route.signals += [s for s in _strings(block, "required_signals", bwhere) if s not in route.signals]
    return route


def merge_routes(routes: list[PolicyRoute]) -> dict[str, PolicyRoute]:
    """One route per package (a package split over several files gets the union)."""
    out: dict[str, PolicyRoute] = {}
    for r in routes:
        have = out.get(r.package)
        if have is None:
            out[r.package] = PolicyRoute(r.package, r.file, list(r.events), list(r.tools), list(r.signals), r.builtin)
            continue
        for attr in ("events", "tools", "signals"):
            lst = getattr(have, attr)
            lst += [x for x in getattr(r, attr) if x not in lst]
    return out


def routing_table(routes: dict[str, PolicyRoute]) -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for pkg in sorted(routes):
        r = routes[pkg]
        wildcard = not r.tools or "*" in r.tools
        for e in r.events:
            keys = [e] if wildcard else [f"{e}:{t}" for t in r.tools]
            for k in keys:
                lst = table.setdefault(k, [])
                if pkg not in lst:
                    lst.append(pkg)
    return table


def lookup(table: dict[str, list[str]], event: str, tool: str | None) -> list[str]:
    """Packages routed to (event, tool): the event's wildcard policies then the tool's."""
    found = list(table.get(event, ()))
    if tool is not None:
        seen = set(found)
        found += [p for p in table.get(f"{event}:{tool}", ()) if p not in seen]
    return found
