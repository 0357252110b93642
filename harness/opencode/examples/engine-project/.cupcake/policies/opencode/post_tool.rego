# METADATA
# title: Checks after a tool ran (PostToolUse)
# custom:
#   routing:
#     required_events: ["PostToolUse"]
package cupcake.policies.opencode.post_tool

import rego.v1

block contains {
	"rule_id": "POST-PRIVATE-KEY",
	"severity": "HIGH",
	"reason": "the tool output contains a private key; do not repeat it",
} if {
	contains(input.tool_response.output, "PRIVATE KEY-----")
}

add_context contains sprintf("%s was edited; remember to update its tests.", [input.tool_input.filePath]) if {
	input.tool_name == "Edit"
}
