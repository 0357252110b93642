# METADATA
# title: e2e timeout scenario — every Bash call waits for a signal that outlasts the plugin's timeout
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: ["slow_check"]
package cupcake.policies.opencode.e2e_slow

import rego.v1

deny contains {
	"rule_id": "E2E-SLOW-CHECK",
	"reason": "the slow check did not pass",
	"severity": "HIGH",
} if {
	not input.signals.slow_check == "ok"
}
