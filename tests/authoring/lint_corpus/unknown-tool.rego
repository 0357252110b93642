# expect: unknown-tool@6
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [bash]
package cupcake.policies.corpus.unknown_tool

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "x"
}
