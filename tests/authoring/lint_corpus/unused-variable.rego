# expect: unused-variable@12
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.unused_variable

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	cmd := input.tool_input.command
	input.tool_input.command == "x"
}
