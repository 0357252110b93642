# METADATA
# title: Demo policy for the test runner's own tests
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.demo

import rego.v1

deny contains {"rule_id": "DEMO-RM", "reason": "no rm", "severity": "HIGH"} if {
	startswith(input.tool_input.command, "rm ")
}

deny contains {"rule_id": "DEMO-CURL", "reason": "no curl", "severity": "HIGH"} if {
	contains(input.tool_input.command, "curl")
	not data.demo.allow_curl
}

ask contains {"rule_id": "DEMO-PUSH", "reason": "push?", "severity": "MEDIUM"} if {
	input.tool_input.command == "git push"
}
