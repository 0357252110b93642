# expect: incremental-rules-grouped@21
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.incremental_rules_grouped

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "x is not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "x"
}

halt contains {"rule_id": "CORPUS-2", "reason": "z stops the session", "severity": "CRITICAL"} if {
	input.tool_input.command == "z"
}

is_y if input.tool_input.command == "y"

deny contains {"rule_id": "CORPUS-3", "reason": "y is not allowed", "severity": "HIGH"} if {
	is_y
}
