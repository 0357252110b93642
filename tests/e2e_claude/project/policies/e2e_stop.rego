# METADATA
# title: e2e - the first Stop after the script is done is blocked (the model must keep working)
# custom:
#   routing:
#     required_events: ["Stop"]
package cupcake.policies.claude.e2e_stop

import rego.v1

block contains {
	"rule_id": "E2E-KEEP-WORKING",
	"reason": "E2E_STOP_FEEDBACK: run the tests before you stop",
	"severity": "MEDIUM",
} if {
	input.stop_hook_active == false
	contains(object.get(input, "last_assistant_message", ""), "MOCK DONE")
}
