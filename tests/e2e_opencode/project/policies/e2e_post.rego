# METADATA
# title: e2e scenario after a tool ran (PostToolUse block of a leaked token)
# custom:
#   routing:
#     required_events: ["PostToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.e2e_post

import rego.v1

block contains {
	"rule_id": "E2E-NO-LEAKS",
	"reason": "the output contains a leaked token",
	"severity": "HIGH",
} if {
	contains(input.tool_response.output, "LEAK_")
}
