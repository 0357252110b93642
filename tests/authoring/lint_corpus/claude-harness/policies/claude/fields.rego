# METADATA
# title: Claude Code argument and tool names (snake_case fields, the normalised subagent name, mcp)
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Edit", "Task", "Agent"]
package cupcake.policies.claude.fields

import rego.v1

# expect: unknown-tool@6
# expect: routing-unused@6
# expect: tool-input-field@17

deny contains {"rule_id": "A", "reason": "camelCase", "severity": "LOW"} if {
	input.tool_name == "Edit"
	endswith(input.tool_input.filePath, ".env")
}

deny contains {"rule_id": "B", "reason": "snake_case is right", "severity": "LOW"} if {
	input.tool_name == "Edit"
	endswith(input.tool_input.file_path, ".env")
}

deny contains {"rule_id": "C", "reason": "mcp and the normalised subagent", "severity": "LOW"} if {
	input.mcp.server == "github"
	input.tool_name == "Task"
	contains(input.tool_input.prompt, "x")
}
