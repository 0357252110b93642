# METADATA
# title: rate_limit — at most N calls of a tool class per window
# description: >-
#   Config (input.builtin_config.rate_limit): limits [{tools: ["Bash", …] or ["*"], max_calls,
#   window_minutes, action: ask|deny}], message. Reads input.history (required signal
#   `history`): when the session already made max_calls calls of those tools within
#   window_minutes, this call is asked (or denied). Every attempted call counts, denied ones too.
# custom:
#   severity: MEDIUM
#   id: BUILTIN-RATE-LIMIT
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
#     required_signals: ["history"]
package cupcake.policies.builtins.rate_limit

import rego.v1

config := object.get(input, ["builtin_config", "rate_limit"], {})

message := object.get(config, "message", "Rate limit reached")

window_of(limit) := object.get(input, ["history", "session", "windows", sprintf("%dm", [limit.window_minutes])], {})

applies(limit) if "*" in limit.tools

applies(limit) if input.tool_name in limit.tools

used(limit) := object.get(window_of(limit), "calls", 0) if "*" in limit.tools

used(limit) := sum([object.get(window_of(limit), ["by_tool", t], 0) | some t in limit.tools]) if not "*" in limit.tools

exceeded contains [limit, sprintf("%s (rate_limit: %d %s calls in the last %d min; at most %d allowed). Slow down or ask the user to raise the limit.", [message, used(limit), concat("/", limit.tools), limit.window_minutes, limit.max_calls])] if {
	input.hook_event_name == "PreToolUse"
	some limit in object.get(config, "limits", [])
	applies(limit)
	used(limit) >= limit.max_calls
}

decision(reason) := {"rule_id": "BUILTIN-RATE-LIMIT", "reason": reason, "severity": "MEDIUM"}

ask contains decision(reason) if {
	some [limit, reason] in exceeded
	object.get(limit, "action", "ask") == "ask"
}

deny contains decision(reason) if {
	some [limit, reason] in exceeded
	limit.action == "deny"
}
