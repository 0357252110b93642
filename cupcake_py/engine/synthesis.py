"""From the decision set the aggregator returns to one final decision.

Decision set (entrypoint `cupcake/system/evaluate`): an object with the arrays `halts`,
`denials`, `blocks`, `asks`, `modifications`, `add_context`. Elements are wrapped as
`{"policy": "<package>", "decision": <value>}` by the shipped aggregator (a Cupcake-style
aggregator's bare values are accepted too, and are never filtered).
- halt/deny/block/ask value: {reason: str, rule_id: str, severity?: str (default MEDIUM),
  agent_context?: str}; other keys ignored.
- modify value: {reason, rule_id, updated_input: any, priority?: int 0..255 (default 50),
  severity?, agent_context?}.
- add_context value: a string.
- sandbox value (optional key; docs/sandbox.md): {read_only?: [str], hidden?: [str]}: paths the
  policy adds to this call's sandbox profile (it can only tighten: no writable roots).
A malformed element fails the evaluation (the caller fails closed) with a message naming
the policy.

Synthesis: the first non-empty of Halt > Deny > Block > Ask > Modify > Allow wins.
Reason: one decision → its reason; several → grouped by severity (CRITICAL/HIGH = high,
MEDIUM/MODERATE = medium, else low), only the highest non-empty group is reported:
  high   "Multiple high-severity policy violations detected: [ID1] r1; [ID2] r2"
  medium "Multiple policy violations detected: [ID1] r1; [ID2] r2"
  low    "Policy guidelines: r1; r2"
Modify: stable sort by priority (high first); deep-merge every object `updated_input`
(the higher-priority value wins a conflict); reason as one, or
"Multiple modifications applied: [ID1] r1; [ID2] r2". Allow: context = the add_context
strings in order (only when Allow wins).
"""

from __future__ import annotations

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.record import FrozenRecord, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection
    from typing import Any, Literal

    Kind = Literal["halt", "deny", "block", "ask", "modify", "allow"]

VERBS: tuple[tuple[str, Kind], ...] = (
    ("halts", "halt"), ("denials", "deny"), ("blocks", "block"), ("asks", "ask"), ("modifications", "modify"),
)
KEYS = ("halts", "denials", "blocks", "asks", "modifications", "add_context", "sandbox")
SANDBOX_FIELDS = ("read_only", "hidden")
STOPPING: frozenset[Kind] = frozenset({"halt", "deny", "block"})


class DecisionError(CupcakeError):
    """The policies returned a decision the engine cannot use."""


class Decision(FrozenRecord):
    __slots__ = ("kind", "reason", "rule_id", "severity", "policy", "agent_context", "updated_input", "priority")
    kind: Kind
    reason: str
    rule_id: str
    severity: str
    policy: str | None
    agent_context: str | None
    updated_input: Any
    priority: int

    def __init__(self, kind: Kind, reason: str, rule_id: str, severity: str = "MEDIUM", policy: str | None = None,
                 agent_context: str | None = None, updated_input: Any = None, priority: int = 50) -> None:
        self._fill(kind, reason, rule_id, severity, policy, agent_context, updated_input, priority)


class DecisionSet(Record):
    __slots__ = ("decisions", "context", "sandbox")
    decisions: list[Decision]
    context: list[str]
    sandbox: dict[str, list[str]]  # profile extension: read_only / hidden paths (docs/sandbox.md)

    def __init__(self, decisions: list[Decision] | None = None, context: list[str] | None = None,
                 sandbox: dict[str, list[str]] | None = None) -> None:
        self._fill([] if decisions is None else decisions, [] if context is None else context,
                   {} if sandbox is None else sandbox)

    def extend(self, other: DecisionSet) -> None:
        self.decisions.extend(other.decisions)
        self.context.extend(other.context)
        for key, paths in other.sandbox.items():
            self.sandbox.setdefault(key, []).extend(p for p in paths if p not in self.sandbox[key])

    def of(self, kind: Kind) -> list[Decision]:
        return [d for d in self.decisions if d.kind == kind]

    def summary(self) -> dict[str, int]:
        counts: dict[str, int] = {k: len(self.of(k)) for _, k in VERBS}
        counts["add_context"] = len(self.context)
        return counts


class FinalDecision(FrozenRecord):
    __slots__ = ("kind", "reason", "rule_ids", "updated_input", "context", "agent_messages")
    kind: Kind
    reason: str | None
    rule_ids: tuple[str, ...]
    updated_input: dict[str, Any] | None
    context: tuple[str, ...]
    agent_messages: tuple[str, ...]

    def __init__(self, kind: Kind, reason: str | None = None, rule_ids: tuple[str, ...] = (),
                 updated_input: dict[str, Any] | None = None, context: tuple[str, ...] = (),
                 agent_messages: tuple[str, ...] = ()) -> None:
        self._fill(kind, reason, rule_ids, updated_input, context, agent_messages)


def _unwrap(item: Any) -> tuple[str | None, Any]:
    if isinstance(item, dict) and set(item) == {"policy", "decision"} and isinstance(item["policy"], str):
        return item["policy"], item["decision"]
    return None, item


def _field(obj: dict[str, Any], key: str, where: str, default: Any = ...) -> Any:
    if key not in obj:
        if default is ...:
            raise DecisionError(f"{where} lacks the required field `{key}`")
        return default
    return obj[key]


def _string(obj: dict[str, Any], key: str, where: str, default: Any = ...) -> Any:
    v = _field(obj, key, where, default)
    if v is not default and not isinstance(v, str):
        raise DecisionError(f"{where}: `{key}` must be a string, got {type(v).__name__}")
    return v


def _decision(kind: Kind, policy: str | None, v: Any) -> Decision:
    where = f"a `{kind}` decision" + (f" of {policy}" if policy else "")
    if not isinstance(v, dict):
        raise DecisionError(f"{where} must be an object with reason and rule_id, got {type(v).__name__}")
    reason = _string(v, "reason", where)
    rule_id = _string(v, "rule_id", where)
    severity = _string(v, "severity", where, "MEDIUM")
    agent = _string(v, "agent_context", where, None)
    if kind != "modify":
        return Decision(kind, reason, rule_id, severity, policy, agent)
    updated = _field(v, "updated_input", where)
    priority = _field(v, "priority", where, 50)
    if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 255:
        raise DecisionError(f"{where}: `priority` must be an integer from 0 to 255, got {priority!r}")
    return Decision(kind, reason, rule_id, severity, policy, agent, updated, priority)


def parse_decision_set(result: Any, routed: Collection[str] | None = None) -> DecisionSet:
    """The decisions in an aggregator result, keeping only those of `routed` packages
    (None: keep all). Raises DecisionError on a malformed result."""
    if not isinstance(result, dict):
        raise DecisionError(f"the aggregator returned {type(result).__name__}, expected an object of decision lists")
    out = DecisionSet()
    for key, kind in VERBS:
        items = result.get(key, [])
        if not isinstance(items, list):
            raise DecisionError(f"`{key}` of the aggregator result must be an array")
        for item in items:
            policy, value = _unwrap(item)
            if routed is not None and policy is not None and policy not in routed:
                continue
            out.decisions.append(_decision(kind, policy, value))
    items = result.get("add_context", [])
    if not isinstance(items, list):
        raise DecisionError("`add_context` of the aggregator result must be an array")
    for item in items:
        policy, value = _unwrap(item)
        if routed is not None and policy is not None and policy not in routed:
            continue
        if not isinstance(value, str):
            raise DecisionError(f"add_context of {policy or 'a policy'} must be a string, got {type(value).__name__}")
        out.context.append(value)
    items = result.get("sandbox", [])
    if not isinstance(items, list):
        raise DecisionError("`sandbox` of the aggregator result must be an array")
    for item in items:
        policy, value = _unwrap(item)
        if routed is not None and policy is not None and policy not in routed:
            continue
        where = f"a `sandbox` extension of {policy or 'a policy'}"
        if not isinstance(value, dict) or not set(value) <= set(SANDBOX_FIELDS):
            raise DecisionError(f"{where} must be an object with only {' and '.join(SANDBOX_FIELDS)}")
        for key in SANDBOX_FIELDS:
            paths = value.get(key, [])
            if not isinstance(paths, list) or not all(isinstance(x, str) and x for x in paths):
                raise DecisionError(f"{where}: `{key}` must be an array of non-empty strings")
            out.sandbox.setdefault(key, []).extend(x for x in paths if x not in out.sandbox[key])
    return out


def severity_level(severity: str) -> int:
    s = severity.upper()
    return 2 if s in ("CRITICAL", "HIGH") else 1 if s in ("MEDIUM", "MODERATE") else 0


def aggregate_reason(decisions: list[Decision]) -> str:
    if len(decisions) == 1:
        return decisions[0].reason
    top = max(severity_level(d.severity) for d in decisions)
    group = [d for d in decisions if severity_level(d.severity) == top]
    if len(group) == 1:
        return group[0].reason
    if top == 0:
        return "Policy guidelines: " + "; ".join(d.reason for d in group)
    prefix = "Multiple high-severity policy violations detected: " if top == 2 else "Multiple policy violations detected: "
    return prefix + "; ".join(f"[{d.rule_id}] {d.reason}" for d in group)


def deep_merge(acc: dict[str, Any], new: dict[str, Any]) -> None:
    """Fold `new` into `acc`; a value already in `acc` (higher priority) wins a conflict."""
    for key, value in new.items():
        if key not in acc:
            acc[key] = value
        elif isinstance(acc[key], dict) and isinstance(value, dict):
            deep_merge(acc[key], value)


def _ids(decisions: list[Decision]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(d.rule_id for d in decisions))


def synthesize(ds: DecisionSet) -> FinalDecision:
    for _, kind in VERBS[:4]:
        group = ds.of(kind)
        if group:
            return FinalDecision(kind, aggregate_reason(group), _ids(group),
                                 agent_messages=tuple(d.agent_context for d in group if d.agent_context))
    mods = ds.of("modify")
    if mods:
        ordered = sorted(mods, key=lambda d: -d.priority)
        merged: dict[str, Any] = {}
        for d in ordered:
            if isinstance(d.updated_input, dict):
                deep_merge(merged, d.updated_input)
        reason = ordered[0].reason if len(ordered) == 1 else \
            "Multiple modifications applied: " + "; ".join(f"[{d.rule_id}] {d.reason}" for d in ordered)
        return FinalDecision("modify", reason, _ids(ordered), merged,
                             agent_messages=tuple(d.agent_context for d in mods if d.agent_context))
    return FinalDecision("allow", context=tuple(ds.context))
