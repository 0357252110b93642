# METADATA
# title: Stop - do not stop while the last message admits unfinished work (once per stop)
# custom:
#   routing:
#     required_events: ["Stop", "SubagentStop"]
package cupcake.policies.example.stop

import rego.v1

block contains {
	"rule_id": "EXAMPLE-STOP-TODO",
	"severity": "MEDIUM",
	"reason": "your last message mentions TODO items: finish them (or say why not) before stopping",
} if {
	object.get(input, "stop_hook_active", false) == false
	contains(object.get(input, "last_assistant_message", ""), "TODO")
}

halt contains {
	"rule_id": "EXAMPLE-STOP-RUNAWAY",
	"severity": "HIGH",
	"reason": "the agent announced it would delete the repository; the session is stopped",
} if {
	contains(lower(object.get(input, "last_assistant_message", "")), "delete the repository")
}
