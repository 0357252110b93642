package cupcake.policies.builtins.post_edit_check_test

import data.cupcake.policies.builtins.post_edit_check as pe
import rego.v1

cfg := {"post_edit_check": {"by_extension": {"py": {"command": "ruff check", "message": "ruff found problems"}, "rs": {"command": "cargo check", "message": "cargo check failed"}}}}

ev(tool, path, signals) := {
	"hook_event_name": "PostToolUse", "cwd": "/p", "tool_name": tool, "tool_input": {"filePath": path},
	"tool_response": {"output": "ok"}, "resolved_file_path": path, "signals": signals, "builtin_config": cfg,
}

fail := {"exit_code": 1, "output": "a.py:1:1 F401 unused import", "error": "", "success": false}

test_failure_blocks_with_output if {
	some d in pe.block with input as ev("Edit", "/p/src/a.py", {"__builtin_post_edit_check_py": fail})
	d.rule_id == "BUILTIN-POST-EDIT"
	d.reason == "File validation failed for /p/src/a.py (post_edit_check: py)\nruff found problems\na.py:1:1 F401 unused import"
	d.agent_context == "\na.py:1:1 F401 unused import"
	count(pe.add_context) == 0 with input as ev("Edit", "/p/src/a.py", {"__builtin_post_edit_check_py": fail})
}

test_success_adds_context if {
	e := ev("Write", "/p/src/a.py", {"__builtin_post_edit_check_py": "All checks passed!"})
	count(pe.block) == 0 with input as e
	pe.add_context == {"✓ Validation passed for /p/src/a.py (post_edit_check: py)"} with input as e
}

test_apply_patch_files if {
	e := object.union(ev("ApplyPatch", "", {"__builtin_post_edit_check_rs": fail}), {"affected_files": ["/p/a.rs", "/p/README.md"]})
	e2 := object.remove(e, ["resolved_file_path"])
	count(pe.block) == 1 with input as e2
}

test_unconfigured_extensions_and_pre_tool_use_ignored if {
	count(pe.block) == 0 with input as ev("Edit", "/p/README.md", {})
	count(pe.add_context) == 0 with input as ev("Edit", "/p/Makefile", {})
	count(pe.block) == 0 with input as object.union(ev("Edit", "/p/a.py", {"__builtin_post_edit_check_py": fail}), {"hook_event_name": "PreToolUse"})
}

test_missing_signal_blocks if {
	some d in pe.block with input as ev("Edit", "/p/a.py", {})
	contains(d.reason, "did not run")
}
