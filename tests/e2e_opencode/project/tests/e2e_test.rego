# Unit tests of the e2e policies (`cupcake verify` runs them while the e2e sets up its project).
package cupcake.policies.opencode.e2e_test

import data.cupcake.policies.opencode.e2e_post
import data.cupcake.policies.opencode.e2e_pre
import rego.v1

pre(tool, args) := {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args}

bash(command) := pre("Bash", {"command": command})

test_rm_rf_is_denied_naming_the_agent if {
	some d in e2e_pre.deny with input as object.union(bash("rm -rf /tmp/x"), {"agent": "general"})
	d.rule_id == "E2E-NO-RM-RF"
	d.reason == "recursive forced deletion is not allowed (agent: general)"
}

test_rm_fr_is_denied if {
	count(e2e_pre.deny) == 1 with input as bash("cd a && rm -fr b")
}

test_plain_rm_is_allowed if {
	count(e2e_pre.deny) == 0 with input as bash("rm notes.txt")
}

test_marked_command_is_rewritten if {
	some m in e2e_pre.modify with input as bash("echo REWRITE_ME")
	m.updated_input == {"command": "echo rewritten-by-cupcake && pwd"}
}

test_context_for_marked_command if {
	e2e_pre.add_context == {"E2E_CONTEXT_MARKER: run the test suite before committing"} with input as bash("echo CONTEXT_ME")
}

test_forbidden_task_is_denied if {
	some d in e2e_pre.deny with input as pre("Task", {"prompt": "CMD: echo FORBIDDEN_TASK", "description": "d", "subagent_type": "general"})
	d.rule_id == "E2E-NO-FORBIDDEN-TASK"
}

test_other_task_is_allowed if {
	count(e2e_pre.deny) == 0 with input as pre("Task", {"prompt": "CMD: ls", "description": "d", "subagent_type": "general"})
}

test_leak_in_output_is_blocked if {
	some b in e2e_post.block with input as {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "env"}, "tool_response": {"output": "LEAK_TOKEN_1\n"}}
	b.rule_id == "E2E-NO-LEAKS"
}
