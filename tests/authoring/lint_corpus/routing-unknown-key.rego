# expect: routing-unknown-key@6
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tool: [Bash]
package cupcake.policies.corpus.routing_unknown_key

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_name == "Bash"
}
