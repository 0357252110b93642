# expect: verb-event-compat@11
# METADATA
# custom:
#   routing:
#     required_events: [PostToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.verb_event_compat

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_response.success == false
}
