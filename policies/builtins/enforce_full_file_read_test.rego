package cupcake.policies.builtins.enforce_full_file_read_test

import data.cupcake.policies.builtins.enforce_full_file_read as ef
import rego.v1

ev(args, n) := {
	"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Read", "tool_input": object.union({"filePath": "a.py"}, args),
	"resolved_file_path": "/p/a.py", "signals": {"file.exists": n != null, "file.line_count": n},
	"builtin_config": {"enforce_full_file_read": {"max_lines": 100}},
}

denied(e) if count(ef.deny) > 0 with input as e

test_partial_reads_of_small_files_denied if {
	denied(ev({"offset": 10}, 50))
	denied(ev({"limit": 20}, 50))
	denied(ev({"offset": 5, "limit": 500}, 99))
	some d in ef.deny with input as ev({"limit": 20}, 50)
	d.reason == "Please read the entire file first (files under 100 lines must be read completely) (enforce_full_file_read: /p/a.py has 50 lines, under max_lines 100; offset/limit given)"
	d.rule_id == "BUILTIN-ENFORCE-FULL-READ"
}

test_full_or_large_reads_allowed if {
	not denied(ev({}, 50))
	not denied(ev({"offset": 0}, 50))
	not denied(ev({"limit": 2000}, 50))
	not denied(ev({"offset": 10, "limit": 20}, 100))
	not denied(ev({"offset": 10, "limit": 20}, 5000))
	not denied(ev({"offset": 10}, null))
}

test_default_max_lines_and_custom_message if {
	e := object.union(object.remove(ev({"limit": 10}, 1999), ["builtin_config"]), {"builtin_config": {"enforce_full_file_read": {"message": "read it all"}}})
	some d in ef.deny with input as e
	startswith(d.reason, "read it all (")
	not denied(object.union(object.remove(ev({"limit": 10}, 2000), ["builtin_config"]), {"builtin_config": {}}))
}
