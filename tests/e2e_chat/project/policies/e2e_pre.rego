# METADATA
# title: e2e scenarios before a tool runs (added to a `cupcake init --harness AGENT` project; AGENT substituted)
# description: >-
#   deny `rm -rf`, rewrite a marked command (modify: the agent must run the rewritten one), deny a subagent
#   spawn whose prompt says BYPASS.
# custom:
#   routing:
#     required_events: ["PreToolUse"]
package cupcake.policies.AGENT.e2e_pre

import rego.v1

command := object.get(input, ["tool_input", "command"], "")

deny contains {
	"rule_id": "E2E-NO-RM-RF",
	"reason": sprintf("E2E_DENY: recursive forced deletion is not allowed (harness: %s, tool: %s)", [input.harness, input.tool]),
	"severity": "HIGH",
} if {
	input.tool_name == "Bash"
	regex.match(`(^|[\s;&|])rm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)(\s|$)`, command)
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

deny contains {
	"rule_id": "E2E-NO-BYPASS-SUBAGENT",
	"reason": "E2E_DENY_TASK: subagents may not be told to bypass the hooks",
	"severity": "HIGH",
} if {
	input.tool_name == "Task"
	contains(json.marshal(input.tool_input), "BYPASS")
}
