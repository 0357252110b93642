package cupcake.policies.builtins.loop_guard_test

import data.cupcake.policies.builtins.loop_guard as lg
import rego.v1

ev(repeats, cfg) := {
	"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "make test"},
	"builtin_config": {"loop_guard": cfg},
	"history": {"current": {"key": "k", "summary": "Bash: make test", "repeats": repeats}},
}

test_the_third_identical_call_in_a_row_is_asked if {
	some d in lg.ask with input as ev(2, {})
	d.rule_id == "BUILTIN-LOOP-GUARD"
	d.reason == "The same tool call keeps being repeated (loop_guard: `Bash: make test` would be the same call 3 times in a row). Try something different or ask the user."
}

test_fewer_repeats_are_allowed if {
	count(lg.ask) == 0 with input as ev(0, {})
	count(lg.ask) == 0 with input as ev(1, {})
	count(lg.ask) == 0 with input as ev(3, {"max_repeats": 5})
}

test_configured_threshold_and_message if {
	some d in lg.ask with input as ev(4, {"max_repeats": 5, "message": "Loop"})
	startswith(d.reason, "Loop (loop_guard: `Bash: make test` would be the same call 5 times in a row)")
}

test_post_tool_use_and_missing_history_are_ignored if {
	count(lg.ask) == 0 with input as object.union(ev(9, {}), {"hook_event_name": "PostToolUse"})
	count(lg.ask) == 0 with input as object.remove(ev(9, {}), ["history"])
}
