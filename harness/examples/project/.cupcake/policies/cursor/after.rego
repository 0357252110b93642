# METADATA
# title: after a tool ran - feedback when output leaks a private key, a hint when a command failed
# custom:
#   routing:
#     required_events: ["PostToolUse", "PostToolUseFailure"]
#     required_tools: ["Bash"]
package cupcake.policies.example.after

import rego.v1

block contains {
	"rule_id": "EXAMPLE-POST-KEY",
	"severity": "HIGH",
	"reason": "the command printed a private key: do not repeat it, and tell the user to rotate it",
} if {
	input.hook_event_name == "PostToolUse"
	contains(object.get(input.tool_response, "stdout", ""), "PRIVATE KEY-----")
}

add_context contains "The command failed: read the error before retrying; do not retry blindly." if {
	input.hook_event_name == "PostToolUseFailure"
}
