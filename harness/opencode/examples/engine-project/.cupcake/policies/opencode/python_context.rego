# METADATA
# title: Context for Python edits
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Edit", "Write"]
package cupcake.policies.opencode.python_context

import rego.v1

add_context contains sprintf("%s is Python: run `ruff check` after editing.", [input.tool_input.filePath]) if {
	endswith(input.resolved_file_path, ".py")
}
