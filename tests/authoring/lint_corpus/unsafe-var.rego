# expect: unsafe-var@11
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.unsafe_var

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": why, "severity": "HIGH"} if {
	input.tool_input.command == "x"
}
