# METADATA
# title: Shell guard (halt, deny, ask on Bash)
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.shell_guard

import data.cupcake.system.commands
import rego.v1

recursive_delete(cmd) if {
	commands.has_verb(cmd, "rm")
	regex.match(`(^|\s)(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(\s|$)`, cmd)
}

deny contains decision if {
	recursive_delete(input.tool_input.command)
	decision := {
		"rule_id": "SHELL-RM-RF",
		"severity": "HIGH",
		"reason": sprintf("recursive delete is not allowed: %s", [input.tool_input.command]),
	}
}

deny contains {
	"rule_id": "SHELL-CURL-PIPE",
	"severity": "HIGH",
	"reason": "piping a download into a shell is not allowed",
} if {
	regex.match(`(curl|wget)[^|]*\|\s*(sudo\s+)?(ba|z|da)?sh(\s|$)`, input.tool_input.command)
}

halt contains {
	"rule_id": "SHELL-MKFS",
	"severity": "CRITICAL",
	"reason": "formatting a filesystem is never allowed",
} if {
	some verb in ["mkfs", "mkfs.ext4", "dd"]
	commands.has_verb(input.tool_input.command, verb)
}

ask contains {
	"rule_id": "SHELL-GIT-PUSH",
	"severity": "MEDIUM",
	"reason": "pushing to a remote needs a human decision",
} if {
	regex.match(`(^|[\s;&|])git\s+push(\s|$)`, input.tool_input.command)
}
