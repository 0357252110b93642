# METADATA
# title: deploy - ask unless the slow deploy check (a signal) says the release is ready
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: ["deploy_ready"]
package cupcake.policies.example.deploy

import rego.v1

ask contains {
	"rule_id": "EXAMPLE-DEPLOY",
	"severity": "MEDIUM",
	"reason": sprintf("deploy check says: %v", [input.signals.deploy_ready]),
} if {
	contains(input.tool_input.command, "./deploy")
	input.signals.deploy_ready != "ready"
}
