# METADATA
# title: Rules for every tool, including MCP tools (`<server>_<tool>`) and subagents
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.opencode.any_tool

import rego.v1

deny contains {
	"rule_id": "MCP-SHELL-RM",
	"severity": "HIGH",
	"reason": sprintf("MCP tool %s may not delete recursively", [input.tool_name]),
} if {
	endswith(input.tool_name, "_run_shell")
	regex.match(`rm\s+-[a-zA-Z]*[rR]`, input.tool_input.command)
}

deny contains {
	"rule_id": "TASK-DESTRUCTIVE",
	"severity": "HIGH",
	"reason": "subagent prompts may not ask for recursive deletes",
} if {
	input.tool_name == "Task"
	regex.match(`rm\s+-[a-zA-Z]*[rR]`, input.tool_input.prompt)
}

add_context contains "Subagents follow the same project policies as the main agent." if {
	input.tool_name == "Task"
}

add_context contains "Keep the todo list short: at most 7 items." if {
	input.tool_name == "TodoWrite"
	count(input.tool_input.todos) > 7
}

deny contains {
	"rule_id": "SKILL-DEPLOY",
	"severity": "MEDIUM",
	"reason": "only release managers may use the deploy skill",
} if {
	input.tool_name == "Skill"
	input.tool_input.name == "deploy"
}
