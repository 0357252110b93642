# METADATA
# title: neutral_after - feedback after a tool ran and before the agent stops (every hook-command harness)
# custom:
#   routing:
#     required_events: ["PostToolUse", "Stop"]
package cupcake.policies.example.neutral_after

import rego.v1

# The tool already ran: block = feedback (the agent's form of it), never undoing the call.
block contains {
	"rule_id": "EXAMPLE-KEY-IN-OUTPUT",
	"severity": "HIGH",
	"reason": "the tool output contains a private key: do not repeat it, rotate the key",
} if {
	input.hook_event_name == "PostToolUse"
	contains(json.marshal(object.get(input, "tool_response", "")), "PRIVATE KEY-----")
}

block contains {
	"rule_id": "EXAMPLE-STOP-TODO-TURN",
	"severity": "LOW",
	"reason": "the work is not finished: resolve the TODO first",
} if {
	input.hook_event_name == "Stop"
	not object.get(input, "stop_hook_active", false)
	contains(json.marshal(object.get(input, "turn", {})), "TODO")
}
