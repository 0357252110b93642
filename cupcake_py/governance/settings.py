"""Governance settings as a bundle stores them, and their merge across the global and the
project bundle. Light (no sqlite3, no pydantic): imported on every `cupcake eval`.

- `bundle_settings(rulebook, uses_history) -> dict` (bundle build): from the rulebook's
  `audit:` section and the governance builtins —
  {mode: off|on|required, explicit, retention_days, max_rows, write_budget_ms, history_last_n,
   windows: [minutes…] (1, 5, 60 plus the builtins' windows), timeout_rules: {rule_id: seconds}}.
  The mode is "on" when the rulebook does not say (audit is on by default); `explicit` is
  whether it said (`audit: on|off|required` or `audit: {mode: …}`). A bundle whose policies read
  the history records evaluations even with `audit: off` (mode "on", and it counts as explicit):
  history is made of those records.
- `merge(settings) -> dict | None`: only the bundles whose rulebook chose a mode count when any
  did (a project's `audit: off` is not overruled by a global rulebook that merely left the
  default, nor the other way round); None when none of those records anything; else the
  strictest mode (required > on), the shortest retention, the largest budget, history length
  and the union of windows and timeout rules.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_WINDOWS = (1, 5, 60)
ESCALATION_RULE = "BUILTIN-ESCALATION"
_MODES = {"off": 0, "on": 1, "required": 2}


def bundle_settings(rulebook: Any, uses_history: bool) -> dict[str, Any]:
    audit = rulebook.audit
    windows = set(DEFAULT_WINDOWS)
    timeout_rules: dict[str, int] = {}
    last_n = audit.history_last_n
    enabled = rulebook.builtins.enabled()
    if "escalation" in enabled:
        esc = enabled["escalation"]
        windows.add(esc.window_minutes)
        timeout_rules[ESCALATION_RULE] = esc.timeout_minutes * 60
    if "rate_limit" in enabled:
        windows.update(rule.window_minutes for rule in enabled["rate_limit"].limits)
    if "loop_guard" in enabled:
        last_n = max(last_n, enabled["loop_guard"].max_repeats)
    mode = audit.mode
    explicit = uses_history or "mode" in audit.model_fields_set  # history needs the records, whatever else says
    if mode == "off" and uses_history:
        mode = "on"
    return {"mode": mode, "explicit": explicit, "retention_days": audit.retention_days, "max_rows": audit.max_rows,
            "write_budget_ms": audit.write_budget_ms, "history_last_n": last_n, "windows": sorted(windows),
            "timeout_rules": timeout_rules}


def merge(settings: list[dict[str, Any]]) -> dict[str, Any] | None:
    given = [s for s in settings if s]
    chosen = [s for s in given if s.get("explicit", True)] or given
    on = [s for s in chosen if s.get("mode", "off") != "off"]
    if not on:
        return None
    return {
        "mode": max((s["mode"] for s in on), key=_MODES.__getitem__),
        "retention_days": min(s["retention_days"] for s in on),
        "max_rows": min(s["max_rows"] for s in on),
        "write_budget_ms": max(s["write_budget_ms"] for s in on),
        "history_last_n": max(s["history_last_n"] for s in on),
        "windows": sorted({w for s in on for w in s["windows"]}),
        "timeout_rules": {k: v for s in on for k, v in s["timeout_rules"].items()},
    }
