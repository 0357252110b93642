package cupcake.policies.builtins.escalation_test

import data.cupcake.policies.builtins.escalation as esc
import rego.v1

cfg := {"escalation": {"max_denials": 3, "window_minutes": 5, "timeout_minutes": 10, "message": "Timeout"}}

no_timeout := {"active": false, "new_until_utc": {"BUILTIN-ESCALATION": "2026-11-23T21:10:00Z"}}

ev(by_decision, timeout) := {
	"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
	"builtin_config": cfg,
	"history": {"session": {"windows": {"5m": {"calls": 9, "by_decision": by_decision}}}, "timeout": timeout},
}

test_repeated_denials_start_a_timeout_that_says_when_it_ends if {
	some d in esc.halt with input as ev({"deny": 2, "block": 1, "allow": 5}, no_timeout)
	d.rule_id == "BUILTIN-ESCALATION"
	d.reason == "Timeout (escalation: 3 denied calls within 5 min): this session is now in timeout for 10 min, until 2026-11-23T21:10:00Z. Stop making tool calls and tell the user."
}

test_during_a_timeout_every_call_is_halted if {
	t := {"active": true, "until_utc": "2026-11-23T21:10:00Z", "minutes_left": 7}
	some d in esc.halt with input as ev({}, t)
	contains(d.reason, "in timeout until 2026-11-23T21:10:00Z (7 min left)")
}

test_halts_by_other_rules_count_as_denials if {
	some d in esc.halt with input as ev({"halt": 2, "deny": 1}, no_timeout)
	contains(d.reason, "3 denied calls within 5 min")
}

test_few_denials_or_only_asks_do_not_escalate if {
	count(esc.halt) == 0 with input as ev({"deny": 2, "allow": 50}, no_timeout)
	count(esc.halt) == 0 with input as ev({"ask": 10, "modify": 3, "halt": 1, "block": 1}, no_timeout)
	count(esc.halt) == 0 with input as ev({}, no_timeout)
}

test_an_ended_timeout_does_not_halt if {
	count(esc.halt) == 0 with input as ev({"deny": 1}, {"active": false, "ended": 1.7e9, "new_until_utc": {}})
}

test_other_windows_and_events_are_ignored if {
	e := object.union(ev({}, no_timeout), {"history": {"session": {"windows": {"1m": {"by_decision": {"deny": 9}}}}, "timeout": no_timeout}})
	count(esc.halt) == 0 with input as e
	count(esc.halt) == 0 with input as object.union(ev({"deny": 9}, no_timeout), {"hook_event_name": "PostToolUse"})
}

test_defaults_without_config if {
	e := object.remove(ev({"deny": 5}, no_timeout), ["builtin_config"])
	some d in esc.halt with input as e
	startswith(d.reason, "Too many tool calls were denied (escalation: 5 denied calls within 5 min)")
	count(esc.halt) == 0 with input as object.remove(ev({"deny": 4}, no_timeout), ["builtin_config"])
}

test_missing_history_never_halts if {
	count(esc.halt) == 0 with input as object.remove(ev({"deny": 9}, no_timeout), ["history"])
}
