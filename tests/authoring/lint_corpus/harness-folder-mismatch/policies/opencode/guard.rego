# expect: harness-folder-mismatch@7
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Edit]
package cupcake.policies.claude.guard

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	endswith(input.tool_input.filePath, ".env")
}
