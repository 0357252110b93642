# METADATA
# title: e2e scenarios before a tool runs, for every agent (added to a `cupcake init --harness <agent>` project)
# description: >-
#   deny `rm -rf` and `rm -r` (Codex rejects `rm -rf` itself before any hook runs, so its run uses `rm -r`),
#   rewrite a marked command (modify), ask for a marked command, add context to a marked command.
# custom:
#   routing:
#     required_events: ["PreToolUse"]
package cupcake.policies.e2e_pre

import rego.v1

command := input.tool_input.command

deny contains {
	"rule_id": "E2E-NO-RM-R",
	"reason": sprintf("E2E_DENY recursive deletion is not allowed (harness: %s, tool: %s)", [input.harness, input.tool]),
	"severity": "HIGH",
} if {
	input.tool_name == "Bash"
	regex.match(`(^|[\s;&|])rm\s+-[a-zA-Z]*r`, command)
}

modify contains {
	"rule_id": "E2E-REWRITE",
	"reason": "the marked command is replaced",
	"severity": "LOW",
	"updated_input": {"command": "echo rewritten-by-cupcake > rewritten.txt"},
} if {
	input.tool_name == "Bash"
	contains(command, "REWRITE_ME")
}

add_context contains "E2E_TOOL_CONTEXT: this command was checked by cupcake" if {
	input.tool_name == "Bash"
	contains(command, "CONTEXT_ME")
}

ask contains {
	"rule_id": "E2E-ASK",
	"reason": "E2E_ASK_REASON: a human must approve this command",
	"severity": "MEDIUM",
} if {
	input.tool_name == "Bash"
	contains(command, "ASK_ME")
}
