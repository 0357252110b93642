# METADATA
# title: git workflow rules that use the built-in git signals (no shell needed)
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: ["git.is_repo", "git.branch", "git.is_dirty"]
package cupcake.policies.example.git_workflow

import rego.v1

pushes if regex.match(`(^|[\s;&|])git\s+push(\s|$)`, input.tool_input.command)

ask contains {
	"rule_id": "EXAMPLE-PUSH-MAIN",
	"severity": "MEDIUM",
	"reason": "pushing main directly: please confirm",
} if {
	pushes
	input.signals["git.branch"] == "main"
}

deny contains {
	"rule_id": "EXAMPLE-PUSH-DIRTY",
	"severity": "HIGH",
	"reason": sprintf("the work tree of branch %s has uncommitted changes; commit or stash them before pushing", [input.signals["git.branch"]]),
} if {
	pushes
	input.signals["git.is_dirty"] == true
}
