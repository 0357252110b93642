# METADATA
# title: neutral_pre - an ask on the normalised input of every hook-command harness
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.example.neutral_pre

import rego.v1

ask contains {
	"rule_id": "EXAMPLE-TERRAFORM-APPLY",
	"severity": "MEDIUM",
	"reason": "terraform apply changes real infrastructure: a human must approve it",
} if {
	startswith(input.tool_input.command, "terraform apply")
}
