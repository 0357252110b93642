# METADATA
# title: Scripts run by Bash are inspected like the command itself
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.scripts

import rego.v1

deny contains {
	"rule_id": "SCRIPT-RM-RF",
	"severity": "HIGH",
	"reason": sprintf("script %s runs a recursive delete", [script.path]),
} if {
	some script in input.executed_scripts
	regex.match(`(^|[\s'"(;&|])rm\s+-[a-zA-Z]*[rR]`, script.content)
}
