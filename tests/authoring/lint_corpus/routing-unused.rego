# expect: routing-unused@6
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash, Write]
package cupcake.policies.corpus.routing_unused

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_name == "Bash"
	input.tool_input.command == "x"
}
