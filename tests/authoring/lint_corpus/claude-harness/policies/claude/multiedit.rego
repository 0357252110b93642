# METADATA
# title: a tool of older Claude Code versions
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["MultiEdit"]
package cupcake.policies.claude.multiedit

import rego.v1

# expect: legacy-tool@6

deny contains {"rule_id": "M", "reason": "never fires", "severity": "LOW"} if {
	some e in input.tool_input.edits
	endswith(e.file_path, ".env")
}
