# expect: metadata-placement@8
package cupcake.policies.corpus.metadata_placement

import rego.v1

# Routing belongs to the package, not to one rule.

# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "x"
}
