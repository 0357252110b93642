# expect: tool-input-field@12
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Edit]
package cupcake.policies.corpus.tool_input_field

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	endswith(input.tool_input.file_path, ".env")
}
