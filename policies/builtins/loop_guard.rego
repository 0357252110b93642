# METADATA
# title: loop_guard — the same call again and again
# description: >-
#   Config (input.builtin_config.loop_guard): max_repeats (3), message. Reads input.history
#   (required signal `history`): when this call's normalised form (Bash: the whitespace-collapsed
#   command; file tools: tool + path + args) equals the session's previous max_repeats - 1
#   calls in a row, it is asked.
# custom:
#   severity: MEDIUM
#   id: BUILTIN-LOOP-GUARD
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
#     required_signals: ["history"]
package cupcake.policies.builtins.loop_guard

import rego.v1

config := object.get(input, ["builtin_config", "loop_guard"], {})

message := object.get(config, "message", "The same tool call keeps being repeated")

max_repeats := object.get(config, "max_repeats", 3)

current := object.get(input, ["history", "current"], {})

ask contains {
	"rule_id": "BUILTIN-LOOP-GUARD",
	"reason": sprintf("%s (loop_guard: `%s` would be the same call %d times in a row). Try something different or ask the user.", [message, current.summary, current.repeats + 1]),
	"severity": "MEDIUM",
} if {
	input.hook_event_name == "PreToolUse"
	current.repeats + 1 >= max_repeats
}
