# METADATA
# title: e2e - context for the session (SessionStart) and for every prompt (UserPromptSubmit)
# custom:
#   routing:
#     required_events: ["SessionStart", "UserPromptSubmit"]
package cupcake.policies.claude.e2e_context

import rego.v1

add_context contains "E2E_SESSION_CONTEXT: the project uses cupcake" if {
	input.hook_event_name == "SessionStart"
}

add_context contains "E2E_PROMPT_CONTEXT: follow CONVENTIONS.md" if {
	input.hook_event_name == "UserPromptSubmit"
}
