package cupcake.policies.builtins.rate_limit_test

import data.cupcake.policies.builtins.rate_limit as rl
import rego.v1

limits := [
	{"tools": ["Bash"], "max_calls": 3, "window_minutes": 1, "action": "ask"},
	{"tools": ["Edit", "Write"], "max_calls": 2, "window_minutes": 5, "action": "deny"},
	{"tools": ["*"], "max_calls": 100, "window_minutes": 60, "action": "deny"},
]

ev(tool, windows) := {
	"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": {},
	"builtin_config": {"rate_limit": {"limits": limits, "message": "Slow down"}},
	"history": {"session": {"windows": windows}},
}

w(calls, by_tool) := {"calls": calls, "by_tool": by_tool, "by_decision": {}, "by_rule": {}}

test_bash_over_its_limit_is_asked if {
	e := ev("Bash", {"1m": w(3, {"Bash": 3}), "5m": w(3, {"Bash": 3}), "60m": w(3, {"Bash": 3})})
	some d in rl.ask with input as e
	d.rule_id == "BUILTIN-RATE-LIMIT"
	d.reason == "Slow down (rate_limit: 3 Bash calls in the last 1 min; at most 3 allowed). Slow down or ask the user to raise the limit."
	count(rl.deny) == 0 with input as e
}

test_a_tool_class_is_summed_and_denied if {
	e := ev("Write", {"1m": w(2, {"Edit": 1, "Write": 1}), "5m": w(2, {"Edit": 1, "Write": 1}), "60m": w(2, {})})
	some d in rl.deny with input as e
	contains(d.reason, "2 Edit/Write calls in the last 5 min; at most 2 allowed")
}

test_all_tools_limit if {
	e := ev("Read", {"1m": w(1, {}), "5m": w(1, {}), "60m": w(100, {"Read": 100})})
	some d in rl.deny with input as e
	contains(d.reason, "100 * calls in the last 60 min")
}

test_under_the_limit_or_other_tools_allowed if {
	count(rl.ask) == 0 with input as ev("Bash", {"1m": w(2, {"Bash": 2}), "5m": w(9, {"Bash": 9}), "60m": w(9, {})})
	count(rl.ask) == 0 with input as ev("Read", {"1m": w(50, {"Bash": 50}), "5m": w(50, {}), "60m": w(50, {})})
	count(rl.deny) == 0 with input as ev("Read", {"1m": w(50, {"Bash": 50}), "5m": w(50, {"Bash": 50}), "60m": w(50, {})})
}

test_missing_history_or_config_never_limits if {
	count(rl.ask) == 0 with input as object.remove(ev("Bash", {}), ["history"])
	count(rl.deny) == 0 with input as object.remove(ev("Bash", {}), ["builtin_config"])
}
