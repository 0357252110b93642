# Tests of deletes_outside_project: run them with `cupcake test` (or `cupcake verify`).
package cupcake.policies.opencode.deletes_outside_project_test

import data.cupcake.policies.opencode.deletes_outside_project as policy
import rego.v1

shell(deletes, opaque) := {
	"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/home/me/proj",
	"shell": {"effects": {"deletes": deletes}, "opaque": opaque},
}

test_delete_in_the_project_is_not_asked if {
	count(policy.ask) == 0 with input as shell(["/home/me/proj/build", "/home/me/proj/src/a.py"], [])
}

test_delete_outside_the_project_asks if {
	some d in policy.ask with input as shell(["/home/me/other"], [])
	d.rule_id == "DELETE-OUTSIDE-PROJECT"
	contains(d.reason, "/home/me/other")
}

test_delete_of_home_and_root_ask if {
	count(policy.ask) == 2 with input as shell(["/home/me", "/"], [])
}

test_delete_of_the_project_itself_is_not_outside_but_its_parent_is if {
	count(policy.ask) == 0 with input as shell(["/home/me/proj"], [])
	count(policy.ask) == 1 with input as shell(["/home/me"], [])
}

test_sibling_with_the_same_prefix_is_outside if {
	count(policy.ask) == 1 with input as shell(["/home/me/proj-old"], [])
}

test_tmp_is_exempt if {
	count(policy.ask) == 0 with input as shell(["/tmp/scratch"], [])
}

test_unknown_delete_target_asks if {
	some d in policy.ask with input as shell([], [{"kind": "deletes", "reason": "opaque operand", "command": 0}])
	d.rule_id == "DELETE-UNKNOWN-TARGET"
}

test_unknown_read_is_not_this_policys_business if {
	count(policy.ask) == 0 with input as shell([], [{"kind": "reads", "reason": "opaque operand", "command": 0}])
}

test_mcp_delete_outside_asks if {
	inp := {
		"hook_event_name": "PreToolUse", "tool_name": "fs_delete", "cwd": "/home/me/proj",
		"tool_paths": [{"path": "/etc/hosts", "original": "/etc/hosts", "arg": "args.path", "access": "delete"}],
	}
	count(policy.ask) == 1 with input as inp
}

test_events_without_analysis_are_allowed if {
	count(policy.ask) == 0 with input as {"hook_event_name": "PreToolUse", "tool_name": "Read", "cwd": "/p"}
}

test_an_unknown_delete_inside_the_sandbox_is_not_asked if {
	i := object.union(shell([], [{"kind": "deletes", "reason": "inline interpreter program", "command": 0}]), {"sandbox": {"applies": true}})
	count(policy.ask) == 0 with input as i
}
