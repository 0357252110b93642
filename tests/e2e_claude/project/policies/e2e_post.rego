# METADATA
# title: e2e - PostToolUse feedback when a command printed a token
# custom:
#   routing:
#     required_events: ["PostToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.claude.e2e_post

import rego.v1

block contains {
	"rule_id": "E2E-LEAK",
	"reason": "E2E_LEAK_FEEDBACK: the output contained a token; do not print secrets",
	"severity": "HIGH",
} if {
	contains(input.tool_response.stdout, "LEAK_")
}
