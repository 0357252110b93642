# METADATA
# title: Decisions that use signals (shell signals from the rulebook and .cupcake/signals/)
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: ["branch", "release_check"]
package cupcake.policies.opencode.signals_policy

import rego.v1

deny contains {
	"rule_id": "GIT-MAIN-COMMIT",
	"severity": "HIGH",
	"reason": sprintf("no direct commits on %s", [input.signals.branch]),
} if {
	regex.match(`(^|[\s;&|])git\s+commit(\s|$)`, input.tool_input.command)
	input.signals.branch == "main"
}

deny contains {
	"rule_id": "RELEASE-CHECK",
	"severity": "HIGH",
	"reason": sprintf("release check failed (exit %d): %s", [input.signals.release_check.exit_code, trim_space(input.signals.release_check.error)]),
} if {
	startswith(input.tool_input.command, "make release")
	input.signals.release_check.success == false
}
