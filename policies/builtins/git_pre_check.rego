# METADATA
# title: git_pre_check — configured checks must pass before git commit, push or merge
# description: >-
#   Config (input.builtin_config.git_pre_check): checks [{command, message, …}]. Check i runs as
#   the generated shell signal `__builtin_git_pre_check_<i>` (exit 0 = pass; the engine gathers
#   it only for routed events). When the analysed Bash command (input.shell.git: aliases,
#   wrappers, `sh -c "…"`, scripts) runs `git commit|push|merge` or a git subcommand computed
#   at run time, any failing or missing check halts with the checks' messages and output.
# custom:
#   severity: HIGH
#   id: BUILTIN-GIT-CHECK
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.builtins.git_pre_check

import data.cupcake.system.effects
import rego.v1

checks := object.get(input, ["builtin_config", "git_pre_check", "checks"], [])

signals := object.get(input, "signals", {})

# A git invocation (input.shell.git: aliases, wrappers, `bash -c` and scripts resolved) runs
# commit, push or merge, or its subcommand is computed at run time (then the checks run too).
git_operation if {
	some g in effects.git
	object.get(g, "subcommand", null) in {"commit", "push", "merge"}
}

git_operation if {
	some g in effects.git
	not is_string(object.get(g, "subcommand", null))
}

failures contains sprintf("- %s%s", [message(i, check), details(signals[name])]) if {
	git_operation
	some i, check in checks
	name := sprintf("__builtin_git_pre_check_%d", [i])
	failed(signals[name])
}

failures contains sprintf("- %s (the check did not run: %s)", [message(i, check), object.get(check, "command", "?")]) if {
	git_operation
	some i, check in checks
	not signals[sprintf("__builtin_git_pre_check_%d", [i])]
}

message(i, check) := check.message if is_string(check.message)

else := sprintf("check %d failed", [i])

failed(v) if {
	is_object(v)
	v.success == false
}

failed(v) if {
	is_object(v)
	not v.success
	is_number(v.exit_code)
	v.exit_code != 0
}

details(v) := sprintf(" (exit %v): %s", [v.exit_code, output]) if {
	text := trim_space(concat("\n", [object.get(v, "output", ""), object.get(v, "error", "")]))
	text != ""
	output := truncated(text)
} else := sprintf(" (exit %v)", [object.get(v, "exit_code", "?")])

truncated(s) := s if count(s) <= 2000

else := concat("", [substring(s, 0, 2000), "…"])

halt contains {
	"rule_id": "BUILTIN-GIT-CHECK",
	"reason": concat("\n", array.concat(["Git pre-checks failed (git_pre_check):"], sort(failures))),
	"severity": "HIGH",
} if count(failures) > 0
