# METADATA
# title: cupcake_exec_protection — the agent cannot run Cupcake itself (global rulebook)
# description: >-
#   Config (input.builtin_config.cupcake_exec_protection): message, allowed_commands (honoured:
#   a command equal to an allowed one, or starting with it plus a space, with no shell operators).
#   Halts Bash commands that run the cupcake binary in any command position (after ; && | $( `
#   quotes, wrappers like sudo/env/exec/eval/source), `python -m cupcake_py`, or install/build it.
# custom:
#   severity: CRITICAL
#   id: GLOBAL-BUILTIN-CUPCAKE-EXEC
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.builtins.cupcake_exec_protection

import rego.v1

config := object.get(input, ["builtin_config", "cupcake_exec_protection"], {})

message := object.get(config, "message", "Direct execution of Cupcake binary is not permitted")

command := lower(input.tool_input.command) if {
	input.hook_event_name == "PreToolUse"
	input.tool_name == "Bash"
	is_string(input.tool_input.command)
}

invocations := [
	`(^|[;&|(\x60'"]|\$\()\s*((sudo|doas|env|exec|eval|source|command|builtin|nohup|time|xargs|uvx|npx|pipx\s+run|uv\s+run|poetry\s+run|timeout\s+\S+|[a-z_][a-z0-9_]*=\S*)\s+)*(-\S+\s+)*(\S*/)?cupcake(-py)?(\s|$|[;&|)\x60'"])`,
	`python[0-9.]*\s+(-\S+\s+)*-m\s+cupcake_py`,
	`cargo\s+(run|build|install)\b.*cupcake`,
	`(pip[0-9]?|pipx|uv\s+pip|brew|apt|apt-get|yum|dnf|snap|npm|cargo)\s+install\b.*cupcake`,
	`alias\s+\S+=['"]?\S*cupcake`,
]

allowed if {
	not regex.match("[;&|`<>\n]|\\$\\(", command)
	some a in object.get(config, "allowed_commands", [])
	is_string(a)
	prefix_allowed(lower(trim_space(a)))
}

prefix_allowed(a) if command == a

prefix_allowed(a) if startswith(command, concat("", [a, " "]))

halt contains {
	"rule_id": "GLOBAL-BUILTIN-CUPCAKE-EXEC",
	"reason": sprintf("%s (cupcake_exec_protection: the command runs or installs cupcake)", [message]),
	"severity": "CRITICAL",
} if {
	not allowed
	some pattern in invocations
	regex.match(pattern, command)
}
