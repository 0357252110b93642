# METADATA
# title: Example policy created by `cupcake init`
# description: >-
#   Refuses force-pushes and asks before `git push` to main. Edit or delete it; every
#   *.rego file under .cupcake/policies/opencode/ is a policy. Check your changes with
#   `cupcake validate .cupcake` and `cupcake test`, then `cupcake verify --harness opencode`.
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.opencode.example

import rego.v1

# input.tool_input is OpenCode's args for the tool (bash: command, timeout, workdir).
command := input.tool_input.command

deny contains {
	"rule_id": "EXAMPLE-NO-FORCE-PUSH",
	"reason": "force-pushing rewrites shared history; push without --force (or use --force-with-lease by hand)",
	"severity": "HIGH",
} if {
	regex.match(`(^|[\s;&|])git\s+push\b.*\s(--force|-f)(\s|$)`, command)
}

ask contains {
	"rule_id": "EXAMPLE-PUSH-MAIN",
	"reason": "pushing to main needs a human decision",
	"severity": "MEDIUM",
} if {
	regex.match(`(^|[\s;&|])git\s+push\s+\S+\s+main(\s|$)`, command)
	not regex.match(`\s(--force|-f)(\s|$)`, command)
}
