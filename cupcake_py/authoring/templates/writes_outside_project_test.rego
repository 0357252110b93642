# Tests of writes_outside_project: run them with `cupcake test` (or `cupcake verify`).
package cupcake.policies.opencode.writes_outside_project_test

import data.cupcake.policies.opencode.writes_outside_project as policy
import rego.v1

shell(writes, opaque, sandbox) := {
	"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/home/me/proj",
	"shell": {"effects": {"writes": writes}, "opaque": opaque}, "tool_paths": [], "sandbox": sandbox,
}

tool(path) := {
	"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": "/home/me/proj",
	"tool_paths": [{"path": path, "access": "write"}], "sandbox": {"applies": false},
}

floor := {"applies": true, "writable": ["/home/me/proj", "/tmp", "/home/me/.cache"]}

test_writes_in_the_project_are_not_asked if {
	count(policy.ask) == 0 with input as shell(["/home/me/proj/a.txt", "/home/me/proj/src/b.py"], [], floor)
	count(policy.ask) == 0 with input as tool("/home/me/proj/src/b.py")
}

test_a_sibling_project_is_asked if {
	some d in policy.ask with input as shell(["/home/me/other/file.txt"], [], floor)
	d.rule_id == "WRITE-OUTSIDE-PROJECT"
	contains(d.reason, "/home/me/other/file.txt")
	some e in policy.ask with input as tool("/home/me/other/file.txt")
	e.rule_id == "WRITE-OUTSIDE-PROJECT"
}

test_a_prefix_of_the_project_name_is_outside if {
	count(policy.ask) == 1 with input as tool("/home/me/project2/x")
}

test_the_sandbox_writable_roots_and_devices_are_allowed if {
	count(policy.ask) == 0 with input as shell(["/home/me/.cache/pip/x", "/tmp/t", "/dev/null"], [], floor)
}

test_without_the_sandbox_only_tmp_is_allowed if {
	count(policy.ask) == 0 with input as tool("/tmp/scratch.txt")
	count(policy.ask) == 1 with input as tool("/home/me/.cache/x")
}

test_an_opaque_write_is_asked_only_without_the_floor if {
	opaque := [{"kind": "writes", "reason": "inline interpreter program"}]
	count(policy.ask) == 0 with input as shell([], opaque, floor)
	some d in policy.ask with input as shell([], opaque, {"applies": false})
	d.rule_id == "WRITE-UNKNOWN-TARGET"
}
