# METADATA
# title: always_inject — add project context to every tool call and every prompt
# description: >-
#   Config (input.builtin_config.always_inject): items [{"text": …} | {"signal": name}] in the
#   order written in the rulebook (static text, `file:` contents and `command:` output; files
#   and commands run as generated signals `__builtin_always_inject_<i>`). Every PreToolUse
#   allow carries them as ONE context string, the items joined by blank lines in rulebook order
#   (a set of strings would come out sorted), which the OpenCode plugin injects into the system
#   prompt; Claude Code's UserPromptSubmit gets the same context with the prompt (Cupcake's
#   always_inject_on_prompt). Non-string signal values are JSON-encoded; a failed command or
#   unreadable file adds a note.
# custom:
#   severity: LOW
#   id: BUILTIN-INJECT-PROMPT
#   routing:
#     required_events: ["PreToolUse", "UserPromptSubmit"]
#     required_tools: ["*"]
package cupcake.policies.builtins.always_inject

import rego.v1

config := object.get(input, ["builtin_config", "always_inject"], {})

signals := object.get(input, "signals", {})

texts := [text |
	some item in object.get(config, "items", [])
	text := item_text(item)
	text != ""
]

add_context contains concat("\n\n", texts) if {
	input.hook_event_name in {"PreToolUse", "UserPromptSubmit"}
	count(texts) > 0
}

item_text(item) := item.text if is_string(item.text)

item_text(item) := render(signals[item.signal]) if is_string(item.signal)

item_text(item) := sprintf("(always_inject: %s produced nothing)", [item.signal]) if {
	is_string(item.signal)
	not signals[item.signal]
}

render(v) := v if is_string(v)

else := sprintf("(always_inject: %s)", [trim_space(object.get(v, "error", "failed"))]) if {
	is_object(v)
	v.success == false
} else := json.marshal(v)
