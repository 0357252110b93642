# METADATA
# title: escalation — put a session that keeps being denied in timeout
# description: >-
#   Config (input.builtin_config.escalation): max_denials (5), window_minutes (5),
#   timeout_minutes (10), message. Reads input.history (required signal `history`). When the
#   session had max_denials deny/block/halt decisions within window_minutes, the call is halted and
#   the engine puts the session in timeout for timeout_minutes (a halt by BUILTIN-ESCALATION
#   starts it); every call during the timeout is halted with a reason that says when it ends.
#   Counts restart when a timeout ends.
# custom:
#   severity: HIGH
#   id: BUILTIN-ESCALATION
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
#     required_signals: ["history"]
package cupcake.policies.builtins.escalation

import rego.v1

config := object.get(input, ["builtin_config", "escalation"], {})

message := object.get(config, "message", "Too many tool calls were denied")

max_denials := object.get(config, "max_denials", 5)

window := object.get(config, "window_minutes", 5)

timeout_minutes := object.get(config, "timeout_minutes", 10)

timeout := object.get(input, ["history", "timeout"], {})

counts := object.get(input, ["history", "session", "windows", sprintf("%dm", [window]), "by_decision"], {})

denials := (object.get(counts, "deny", 0) + object.get(counts, "block", 0)) + object.get(counts, "halt", 0)

decision(reason) := {"rule_id": "BUILTIN-ESCALATION", "reason": reason, "severity": "HIGH"}

halt contains decision(sprintf("%s: this session is in timeout until %s (%d min left) because too many tool calls were denied. Stop making tool calls and tell the user.", [message, timeout.until_utc, timeout.minutes_left])) if {
	input.hook_event_name == "PreToolUse"
	timeout.active == true
}

halt contains decision(sprintf("%s (escalation: %d denied calls within %d min): this session is now in timeout for %d min, until %s. Stop making tool calls and tell the user.", [message, denials, window, timeout_minutes, until])) if {
	input.hook_event_name == "PreToolUse"
	not timeout.active
	denials >= max_denials
	until := object.get(timeout, ["new_until_utc", "BUILTIN-ESCALATION"], "unknown")
}
