# METADATA
# title: prompts - no credentials pasted into a prompt, a testing reminder for coding requests
# custom:
#   routing:
#     required_events: ["UserPromptSubmit"]
package cupcake.policies.example.prompts

import rego.v1

block contains {
	"rule_id": "EXAMPLE-PROMPT-SECRET",
	"severity": "HIGH",
	"reason": "the prompt contains what looks like an AWS access key; remove it and use the credentials file",
} if {
	input.hook_event_name == "UserPromptSubmit"
	regex.match(`AKIA[0-9A-Z]{16}`, input.prompt)
}

add_context contains "Reminder: run `pytest -q` before you say the work is done." if {
	input.hook_event_name == "UserPromptSubmit"
	regex.match(`(?i)\b(fix|implement|refactor)\b`, input.prompt)
}
