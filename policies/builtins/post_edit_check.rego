# METADATA
# title: post_edit_check — run the configured check for the edited file's extension
# description: >-
#   Config (input.builtin_config.post_edit_check): by_extension {ext: {command, message, …}}.
#   After an edit/write/apply_patch (PostToolUse), the generated signal
#   `__builtin_post_edit_check_<ext>` holds the check result for each edited file's extension.
#   Failure → block: the reason carries the message and the check output, which the OpenCode
#   plugin hands to the model as feedback. Success → context "✓ Validation passed for <file>".
# custom:
#   severity: MEDIUM
#   id: BUILTIN-POST-EDIT
#   routing:
#     required_events: ["PostToolUse"]
#     required_tools: ["Edit", "Write", "ApplyPatch", "Patch", "MultiEdit", "NotebookEdit"]
package cupcake.policies.builtins.post_edit_check

import rego.v1

by_extension := object.get(input, ["builtin_config", "post_edit_check", "by_extension"], {})

signals := object.get(input, "signals", {})

edited contains input.resolved_file_path if {
	input.hook_event_name == "PostToolUse"
	is_string(input.resolved_file_path)
}

edited contains path if {
	input.hook_event_name == "PostToolUse"
	some path in object.get(input, "affected_files", [])
}

# (file, extension, check) for every edited file whose extension has a check.
checked contains [file, ext, check] if {
	some file in edited
	name := regex.replace(file, `^.*/`, "")
	contains(name, ".")
	parts := split(name, ".")
	ext := parts[count(parts) - 1]
	check := by_extension[ext]
}

failed(v) if {
	is_object(v)
	v.success == false
}

block contains {
	"rule_id": "BUILTIN-POST-EDIT",
	"reason": sprintf("File validation failed for %s (post_edit_check: %s)\n%s%s", [file, ext, object.get(check, "message", "check failed"), output(v)]),
	"severity": "MEDIUM",
	"agent_context": output(v),
} if {
	some [file, ext, check] in checked
	v := signals[sprintf("__builtin_post_edit_check_%s", [ext])]
	failed(v)
}

block contains {
	"rule_id": "BUILTIN-POST-EDIT",
	"reason": sprintf("File validation for %s did not run (post_edit_check: %s): %s", [file, ext, object.get(check, "command", "?")]),
	"severity": "MEDIUM",
} if {
	some [file, ext, check] in checked
	not signals[sprintf("__builtin_post_edit_check_%s", [ext])]
}

output(v) := concat("", ["\n", truncated(text)]) if {
	text := trim_space(concat("\n", [object.get(v, "output", ""), object.get(v, "error", "")]))
	text != ""
} else := ""

truncated(s) := s if count(s) <= 4000

else := concat("", [substring(s, 0, 4000), "…"])

add_context contains sprintf("✓ Validation passed for %s (post_edit_check: %s)", [file, ext]) if {
	some [file, ext, _] in checked
	v := signals[sprintf("__builtin_post_edit_check_%s", [ext])]
	not failed(v)
}
