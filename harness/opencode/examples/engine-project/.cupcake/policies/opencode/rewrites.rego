# METADATA
# title: Argument rewrites (modify) for WebFetch and Bash
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["WebFetch", "Bash"]
package cupcake.policies.opencode.rewrites

import rego.v1

modify contains {
	"rule_id": "FETCH-HTTPS",
	"reason": "fetch over https",
	"priority": 80,
	"updated_input": {"url": concat("", ["https://", substring(input.tool_input.url, 7, -1)])},
} if {
	input.tool_name == "WebFetch"
	startswith(input.tool_input.url, "http://")
}

deny contains {
	"rule_id": "FETCH-METADATA",
	"severity": "HIGH",
	"reason": "the cloud metadata endpoint is off limits",
} if {
	input.tool_name == "WebFetch"
	contains(input.tool_input.url, "169.254.169.254")
}

modify contains {
	"rule_id": "NPM-IGNORE-SCRIPTS",
	"reason": "install without lifecycle scripts",
	"priority": 90,
	"updated_input": {"command": concat(" ", [input.tool_input.command, "--ignore-scripts"])},
} if {
	input.tool_name == "Bash"
	regex.match(`^npm (install|i)(\s|$)`, input.tool_input.command)
}

modify contains {
	"rule_id": "NPM-TIMEOUT",
	"reason": "give installs ten minutes",
	"priority": 10,
	"updated_input": {"command": "npm ci", "timeout": 600000},
} if {
	input.tool_name == "Bash"
	regex.match(`^npm (install|i)(\s|$)`, input.tool_input.command)
}
