# expect: unknown-event@5
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUs]
#     required_tools: [Bash]
package cupcake.policies.corpus.unknown_event

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "x"
}
