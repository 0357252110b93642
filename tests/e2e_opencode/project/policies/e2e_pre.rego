# METADATA
# title: e2e scenarios before a tool runs (the real-OpenCode e2e adds this to a `cupcake init` project)
# description: >-
#   deny `rm -rf` (the reason names the OpenCode agent, so a test sees which session asked), rewrite a marked command (modify), add context for a marked command, and
#   deny a subagent (Task) whose prompt is marked.
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash", "Task"]
package cupcake.policies.opencode.e2e_pre

import rego.v1

command := input.tool_input.command if input.tool_name == "Bash"

deny contains {
	"rule_id": "E2E-NO-RM-RF",
	"reason": sprintf("recursive forced deletion is not allowed (agent: %s)", [object.get(input, "agent", "unknown")]),
	"severity": "HIGH",
} if {
	regex.match(`(^|[\s;&|])rm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)(\s|$)`, command)
}

deny contains {
	"rule_id": "E2E-NO-FORBIDDEN-TASK",
	"reason": "this subagent task is not allowed",
	"severity": "HIGH",
} if {
	input.tool_name == "Task"
	contains(input.tool_input.prompt, "FORBIDDEN_TASK")
}

modify contains {
	"rule_id": "E2E-REWRITE",
	"reason": "the marked command is replaced",
	"severity": "LOW",
	"updated_input": {"command": "echo rewritten-by-cupcake && pwd"},
} if {
	contains(command, "REWRITE_ME")
}

add_context contains "E2E_CONTEXT_MARKER: run the test suite before committing" if {
	contains(command, "CONTEXT_ME")
}
