package cupcake.policies.builtins.git_pre_check_test

import data.cupcake.policies.builtins.git_pre_check as gp
import rego.v1

cfg := {"git_pre_check": {"checks": [{"command": "make lint", "message": "lint failed"}, {"command": "make test", "message": "tests failed"}]}}

# The analysed git invocations of a few command lines (what cupcake_py.shell reports).
gits := {
	"git commit -m x": [{"subcommand": "commit"}], "git push origin main": [{"subcommand": "push"}], "git merge dev": [{"subcommand": "merge"}],
	"cd a && git commit -am x": [{"subcommand": "commit"}], "bash -c 'git commit -m x'": [{"subcommand": "commit"}],
	"/usr/bin/git -C repo push": [{"subcommand": "push"}], "git -c alias.ci=commit ci": [{"subcommand": "commit"}],
	"git $(echo commit)": [{"subcommand": null}], "git status": [{"subcommand": "status"}], "git log": [{"subcommand": "log"}],
	"echo git commit": [], "ls": [], "git commit-tree x": [{"subcommand": "commit-tree"}], "git commit": [{"subcommand": "commit"}],
	"git push": [{"subcommand": "push"}],
}

ev(cmd, signals) := {"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": cmd}, "signals": signals, "builtin_config": cfg, "shell": {"version": 1, "source": cmd, "parsed": true, "commands": [], "git": gits[cmd]}}

ok := {"__builtin_git_pre_check_0": "fine", "__builtin_git_pre_check_1": "Validation passed"}

bad := {"__builtin_git_pre_check_0": "fine", "__builtin_git_pre_check_1": {"exit_code": 2, "output": "FAILED test_x", "error": "", "success": false}}

test_failing_check_halts_git_operations if {
	every cmd in ["git commit -m x", "git push origin main", "git merge dev", "cd a && git commit -am x", "bash -c 'git commit -m x'", "/usr/bin/git -C repo push", "git -c alias.ci=commit ci", "git $(echo commit)"] {
		some d in gp.halt with input as ev(cmd, bad)
		d.rule_id == "BUILTIN-GIT-CHECK"
		d.reason == "Git pre-checks failed (git_pre_check):\n- tests failed (exit 2): FAILED test_x"
	}
}

test_passing_checks_allow if {
	count(gp.halt) == 0 with input as ev("git commit -m x", ok)
}

test_other_commands_ignore_checks if {
	every cmd in ["git status", "git log", "echo git commit", "ls", "git commit-tree x"] {
		count(gp.halt) == 0 with input as ev(cmd, bad)
	}
}

test_missing_signal_fails_closed if {
	some d in gp.halt with input as ev("git commit -m x", {"__builtin_git_pre_check_0": "ok"})
	contains(d.reason, "tests failed (the check did not run: make test)")
}

test_timed_out_check if {
	sig := {"__builtin_git_pre_check_0": {"exit_code": -1, "output": "", "error": "timed out after 30s", "success": false, "timed_out": true}, "__builtin_git_pre_check_1": "ok"}
	some d in gp.halt with input as ev("git push", sig)
	d.reason == "Git pre-checks failed (git_pre_check):\n- lint failed (exit -1): timed out after 30s"
}

test_no_checks_configured if {
	count(gp.halt) == 0 with input as object.union(ev("git commit", {}), {"builtin_config": {"git_pre_check": {"checks": []}}})
}
