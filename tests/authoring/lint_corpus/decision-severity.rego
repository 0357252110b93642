# expect: decision-severity@11
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.decision_severity

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "high"} if {
	input.tool_input.command == "x"
}
