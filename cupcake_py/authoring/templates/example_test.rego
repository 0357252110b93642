# Tests of the example policy: run them with `cupcake test` (or `cupcake verify`).
package cupcake.policies.opencode.example_test

import data.cupcake.policies.opencode.example
import rego.v1

bash(command) := {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}}

test_force_push_is_denied if {
	some d in example.deny with input as bash("git push --force origin feature")
	d.rule_id == "EXAMPLE-NO-FORCE-PUSH"
}

test_short_force_flag_is_denied if {
	count(example.deny) == 1 with input as bash("git push -f")
}

test_push_to_main_asks if {
	some d in example.ask with input as bash("git push origin main")
	d.rule_id == "EXAMPLE-PUSH-MAIN"
}

test_plain_push_is_allowed if {
	count(example.deny) == 0 with input as bash("git push origin feature")
	count(example.ask) == 0 with input as bash("git push origin feature")
}

test_other_commands_are_allowed if {
	count(example.deny) == 0 with input as bash("ls -la")
}
