# expect: prefer-deny@11
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.prefer_deny

import rego.v1

block contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "x"
}
