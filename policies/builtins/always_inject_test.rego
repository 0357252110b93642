package cupcake.policies.builtins.always_inject_test

import data.cupcake.policies.builtins.always_inject as ai
import rego.v1

ev(items, signals) := {"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": "ls"}, "signals": signals, "builtin_config": {"always_inject": {"items": items}}}

test_static_file_and_command_contexts if {
	items := [{"text": "Use tabs."}, {"signal": "__builtin_always_inject_1"}, {"signal": "__builtin_always_inject_2"}]
	sig := {"__builtin_always_inject_1": "# Conventions\nNo globals.", "__builtin_always_inject_2": {"branch": "main"}}
	ai.add_context == {"Use tabs.\n\n# Conventions\nNo globals.\n\n{\"branch\":\"main\"}"} with input as ev(items, sig)
}

test_rulebook_order_is_kept if {
	items := [{"signal": "__builtin_always_inject_0"}, {"text": "b: second"}, {"text": "a: third"}]
	ai.add_context == {"z: first\n\nb: second\n\na: third"} with input as ev(items, {"__builtin_always_inject_0": "z: first"})
}

test_empty_items_add_nothing if {
	count(ai.add_context) == 0 with input as ev([{"signal": "__builtin_always_inject_0"}], {"__builtin_always_inject_0": ""})
}

test_failed_command_is_noted if {
	sig := {"__builtin_always_inject_0": {"exit_code": 1, "output": "", "error": "cat: x: No such file", "success": false}}
	ai.add_context == {"(always_inject: cat: x: No such file)"} with input as ev([{"signal": "__builtin_always_inject_0"}], sig)
	ai.add_context == {"(always_inject: __builtin_always_inject_0 produced nothing)"} with input as ev([{"signal": "__builtin_always_inject_0"}], {})
}

test_nothing_without_config_or_on_post_tool_use if {
	count(ai.add_context) == 0 with input as object.remove(ev([], {}), ["builtin_config"])
	count(ai.add_context) == 0 with input as object.union(ev([{"text": "x"}], {}), {"hook_event_name": "PostToolUse"})
}
