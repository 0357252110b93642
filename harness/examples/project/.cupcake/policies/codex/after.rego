# METADATA
# title: after - feedback on tool output (the output's text as each agent sends it)
# custom:
#   routing:
#     required_events: ["PostToolUse", "PostToolUseFailure"]
package cupcake.policies.example.after

import rego.v1

# Codex sends the output as a string; Gemini CLI and Qwen Code as {llmContent, ...}; Claude Code as {stdout, ...}.
output_text := input.tool_response if is_string(input.tool_response)

output_text := concat("\n", [object.get(input.tool_response, "stdout", ""), object.get(input.tool_response, "llmContent", "")]) if {
	is_object(input.tool_response)
}

block contains {
	"rule_id": "EXAMPLE-POST-KEY",
	"severity": "HIGH",
	"reason": "the command printed a private key: do not repeat it, and tell the user to rotate it",
} if {
	contains(output_text, "PRIVATE KEY-----")
}

add_context contains "The command failed: read the error before retrying; do not retry blindly." if {
	input.hook_event_name == "PostToolUseFailure"
}
