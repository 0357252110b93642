# expect: decision-unknown-field@17
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.decision_unknown_field

import rego.v1

deny contains decision if {
	input.tool_input.command == "x"
	decision := {
		"rule_id": "CORPUS-1",
		"reason": "not allowed",
		"severity": "HIGH",
		"message": "duplicate of reason",
	}
}
