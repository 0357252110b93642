# expect: priority-range@15
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.priority_range

import rego.v1

modify contains {
	"rule_id": "CORPUS-1",
	"reason": "add a timeout",
	"severity": "LOW",
	"priority": 300,
	"updated_input": {"timeout": 60000},
} if {
	not input.tool_input.timeout
}
