# expect: raw-path-prefix@12
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Edit, Write]
package cupcake.policies.corpus.raw_path_prefix

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	startswith(input.tool_input.filePath, "migrations/")
}

deny contains {"rule_id": "CORPUS-2", "reason": "not allowed", "severity": "HIGH"} if {
	startswith(input.project_file_path, "migrations/")
}
