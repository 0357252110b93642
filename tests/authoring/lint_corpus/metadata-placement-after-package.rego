# expect: metadata-placement@8
package cupcake.policies.corpus.metadata_after_package

import rego.v1

# A package-scoped block after `package`.

# METADATA
# scope: package
# custom:
#   routing:
#     required_events: [PreToolUse]
deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "x"
}
