# METADATA
# title: e2e scenarios that need the user's approval (askMode tests)
# description: >-
#   ask before a Bash command marked NEEDS_APPROVAL, and before an Edit, Write or Read of a file whose name
#   contains "approval"; everything else is left to the other policies.
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash", "Edit", "Write", "Read"]
package cupcake.policies.opencode.e2e_ask

import rego.v1

ask contains {
	"rule_id": "E2E-ASK-COMMAND",
	"reason": "commands marked NEEDS_APPROVAL need the user's approval",
	"severity": "MEDIUM",
} if {
	input.tool_name == "Bash"
	contains(input.tool_input.command, "NEEDS_APPROVAL")
}

ask contains {
	"rule_id": "E2E-ASK-FILE",
	"reason": "files named *approval* need the user's approval",
	"severity": "MEDIUM",
} if {
	input.tool_name in {"Edit", "Write", "Read"}
	contains(input.resolved_file_path, "approval")
}
