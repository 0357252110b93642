# METADATA
# title: A signal that times out (its result is a failure object, the policy sees it)
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: ["slow_check"]
package cupcake.policies.opencode.slow_signal

import rego.v1

ask contains {
	"rule_id": "SLOW-CHECK-TIMEOUT",
	"severity": "LOW",
	"reason": sprintf("the deploy check did not finish: %s", [input.signals.slow_check.error]),
} if {
	startswith(input.tool_input.command, "./deploy-prod")
	input.signals.slow_check.timed_out
}
