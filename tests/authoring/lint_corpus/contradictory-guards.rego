# expect: contradictory-guards@17
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash, Edit]
package cupcake.policies.corpus.contradictory_guards

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "x"
}

deny contains {"rule_id": "CORPUS-2", "reason": "never", "severity": "HIGH"} if {
	input.tool_name == "Bash"
	input.tool_name == "Edit"
}
