# METADATA
# title: e2e - context for the model after a Bash command failed (PostToolUseFailure)
# custom:
#   routing:
#     required_events: ["PostToolUseFailure"]
#     required_tools: ["Bash"]
package cupcake.policies.claude.e2e_failure

import rego.v1

add_context contains "E2E_FAILURE_CONTEXT: read the error before retrying" if {
	contains(input.error, "FAIL_ME")
}
