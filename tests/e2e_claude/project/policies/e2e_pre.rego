# METADATA
# title: e2e scenarios before a Claude Code tool runs (added to a `cupcake init --harness claude` project)
# description: >-
#   deny `rm -rf`, rewrite a marked command (modify: the hook must send the WHOLE input back), ask for a
#   marked command, add context to a marked command.
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.claude.e2e_pre

import rego.v1

command := input.tool_input.command

deny contains {
	"rule_id": "E2E-NO-RM-RF",
	"reason": sprintf("recursive forced deletion is not allowed (harness: %s, tool: %s)", [input.harness, input.tool]),
	"severity": "HIGH",
} if {
	regex.match(`(^|[\s;&|])rm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)(\s|$)`, command)
}

modify contains {
	"rule_id": "E2E-REWRITE",
	"reason": "the marked command is replaced",
	"severity": "LOW",
	"updated_input": {"command": "echo rewritten-by-cupcake > rewritten.txt"},
} if {
	contains(command, "REWRITE_ME")
}

ask contains {
	"rule_id": "E2E-ASK",
	"reason": "E2E_ASK_REASON: a human must approve this command",
	"severity": "MEDIUM",
} if {
	contains(command, "ASK_ME")
}

add_context contains "E2E_TOOL_CONTEXT: this command was checked by cupcake" if {
	contains(command, "CONTEXT_ME")
}
