# expect: deprecated-builtin@13
# expect: type-error@13
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.deprecated_builtin

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	re_match(`^rm\s`, input.tool_input.command)
}
