# expect: event-not-in-harness@5
# METADATA
# custom:
#   routing:
#     required_events: [UserPromptSubmit]
package cupcake.policies.corpus.event_not_in_harness

import rego.v1

add_context contains "remember the style guide" if {
	input.session_id != ""
}
