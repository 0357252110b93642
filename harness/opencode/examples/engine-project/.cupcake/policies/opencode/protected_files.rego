# METADATA
# title: Protected files (.env*, secrets/) for every file-touching tool
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Edit", "Write", "Read", "Grep", "Glob", "ApplyPatch", "Bash"]
package cupcake.policies.opencode.protected_files

import rego.v1

protected(path) if regex.match(`(^|/)\.env[^/]*$`, path)

protected(path) if regex.match(`(^|/)secrets(/|$)`, path)

deny contains {
	"rule_id": "FILES-PROTECTED",
	"severity": "HIGH",
	"reason": sprintf("%s is protected (%s)", [input.resolved_file_path, input.tool_name]),
} if {
	input.tool_name in {"Edit", "Write", "Read", "Grep", "Glob"}
	protected(input.resolved_file_path)
}

deny contains {
	"rule_id": "FILES-PROTECTED-PATCH",
	"severity": "HIGH",
	"reason": sprintf("apply_patch touches protected file %s", [path]),
} if {
	input.tool_name == "ApplyPatch"
	some path in input.affected_files
	protected(path)
}

deny contains {
	"rule_id": "FILES-PROTECTED-SHELL",
	"severity": "HIGH",
	"reason": sprintf("the command operates on protected path %s", [dir]),
} if {
	input.tool_name == "Bash"
	some dir in input.affected_parent_directories
	protected(dir)
}

deny contains {
	"rule_id": "FILES-ENV-SEARCH",
	"severity": "MEDIUM",
	"reason": "searching for .env files is not allowed",
} if {
	input.tool_name == "Glob"
	contains(input.tool_input.pattern, ".env")
}
