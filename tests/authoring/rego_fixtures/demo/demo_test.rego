package cupcake.policies.demo_test

import data.cupcake.policies.demo
import rego.v1

bash(command) := {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}}

test_rm_denied if {
	some d in demo.deny with input as bash("rm -rf /")
	d.rule_id == "DEMO-RM"
}

test_ls_allowed if {
	count(demo.deny) == 0 with input as bash("ls")
}

test_data_mock if {
	count(demo.deny) == 0 with input as bash("curl x") with data.demo.allow_curl as true
}

never(_, _) := false

test_function_mock if {
	count(demo.deny) == 0 with input as bash("rm x") with startswith as never
}

test_wrong_id if {
	cmd := "curl x"
	ids := {d.rule_id | some d in demo.deny} with input as bash(cmd)
	ids == {"DEMO-RM"}
}

test_strict_builtin_error if {
	time.parse_rfc3339_ns("not a time") > 0
}

todo_test_later if false
