# METADATA
# title: e2e (timeout world only) - every shell call waits for a signal that outlasts cupcake's deadline
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: ["slow_check"]
package cupcake.policies.AGENT.e2e_slow

import rego.v1

deny contains {
	"rule_id": "E2E-SLOW",
	"reason": "the slow check failed",
	"severity": "HIGH",
} if {
	input.signals.slow_check != "ok"
}
