# expect: guard-event-not-routed@16
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.guard_event_not_routed

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "x"
}

deny contains {"rule_id": "CORPUS-2", "reason": "after the fact", "severity": "HIGH"} if {
	input.hook_event_name == "PostToolUse"
}
