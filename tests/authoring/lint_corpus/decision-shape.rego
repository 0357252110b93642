# expect: decision-shape@11
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.decision_shape

import rego.v1

deny contains "commands named x are not allowed" if {
	input.tool_input.command == "x"
}
