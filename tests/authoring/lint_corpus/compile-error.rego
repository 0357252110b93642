# expect: compile-error@13
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.compile_error

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	x := input.tool_input.command
	x := "rm"
	x == "y"
}
