# METADATA
# title: neutral - an ask, a post-tool check and a stop check on the normalised input of every hook-command harness
# custom:
#   routing:
#     required_events: ["PreToolUse", "PostToolUse", "Stop"]
package cupcake.policies.example.neutral

import rego.v1

ask contains {
	"rule_id": "EXAMPLE-TERRAFORM-APPLY",
	"severity": "MEDIUM",
	"reason": "terraform apply changes real infrastructure: a human must approve it",
} if {
	input.hook_event_name == "PreToolUse"
	input.tool_name == "Bash"
	startswith(input.tool_input.command, "terraform apply")
}

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
	"rule_id": "EXAMPLE-STOP-TODO",
	"severity": "LOW",
	"reason": "the work is not finished: resolve the TODO first",
} if {
	input.hook_event_name == "Stop"
	not object.get(input, "stop_hook_active", false)
	contains(json.marshal(object.get(input, "turn", {})), "TODO")
}
