# METADATA
# title: session events are sent by this harness (no event-not-in-harness here, unlike under policies/opencode/)
# custom:
#   routing:
#     required_events: ["Stop"]
package cupcake.policies.claude.events

import rego.v1

block contains {"rule_id": "D", "reason": "keep working", "severity": "LOW"} if {
	input.hook_event_name == "Stop"
	input.stop_hook_active == false
}
