# METADATA
# title: tools - MCP servers, subagents and a command rewrite (Claude Code names, normalised input)
# custom:
#   routing:
#     required_events: ["PreToolUse"]
package cupcake.policies.example.tools

import rego.v1

# MCP tools arrive as mcp__<server>__<tool>; the harness adds input.mcp = {server, tool}.
deny contains {
	"rule_id": "EXAMPLE-MCP-DELETE",
	"severity": "HIGH",
	"reason": sprintf("MCP tool %s of server %s deletes data and is not allowed", [input.mcp.tool, input.mcp.server]),
} if {
	startswith(input.mcp.tool, "delete_")
}

# Claude Code's subagent tool (Agent) is normalised to Task, the name OpenCode's has too.
deny contains {
	"rule_id": "EXAMPLE-SUBAGENT-BYPASS",
	"severity": "HIGH",
	"reason": "subagents may not be told to skip permission checks",
} if {
	input.tool_name == "Task"
	regex.match(`(?i)(skip|bypass|disable)\s+(the\s+)?(permission|hook|cupcake)`, input.tool_input.prompt)
}

ask contains {
	"rule_id": "EXAMPLE-MCP-PROD",
	"severity": "MEDIUM",
	"reason": "the prod-db MCP server touches production: confirm this call",
} if {
	input.mcp.server == "prod-db"
	not startswith(input.mcp.tool, "delete_")
}

# modify: Claude Code replaces the WHOLE tool input with updatedInput; the harness keeps the other fields.
modify contains {
	"rule_id": "EXAMPLE-NPM-CI",
	"severity": "LOW",
	"reason": "use the lock file: npm ci instead of npm install",
	"updated_input": {"command": replace(input.tool_input.command, "npm install", "npm ci")},
} if {
	input.tool_name == "Bash"
	regex.match(`^npm install\s*$`, input.tool_input.command)
}
