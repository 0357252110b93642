# expect: legacy-tool@6
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [MultiEdit]
package cupcake.policies.corpus.legacy_tool

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.resolved_file_path == "/etc/passwd"
}
