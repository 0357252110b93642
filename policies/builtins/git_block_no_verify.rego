# METADATA
# title: git_block_no_verify — git hooks must run
# description: >-
#   Config (input.builtin_config.git_block_no_verify): message, exceptions (a git command whose
#   text contains an exception string is not checked for --no-verify). Denies `git commit` with
#   --no-verify or a short-flag cluster holding `n` (-n, -an, -nm "msg"; never inside a quoted
#   message), `git push|merge --no-verify` (push -n is --dry-run and stays allowed), hook
#   disabling (`-c core.hooksPath=…`, `git config core.hooksPath /dev/null|''`, `--unset
#   core.hooksPath`, case-insensitive like git), HUSKY=0, and chmod -x / rm / mv / truncate /
#   edits of `.git/hooks`. Commands inside `sh -c "…"`/`eval "…"` quoted strings are checked too.
# custom:
#   severity: HIGH
#   id: BUILTIN-GIT-BLOCK-NO-VERIFY
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash", "Edit", "Write", "ApplyPatch"]
package cupcake.policies.builtins.git_block_no_verify

import data.cupcake.system.commands
import rego.v1

config := object.get(input, ["builtin_config", "git_block_no_verify"], {})

message := object.get(config, "message", "Git operations with --no-verify are not permitted. Commit hooks must run for code quality and security checks.")

hooks_message := "Disabling git hooks is not permitted. Hooks are required for code quality and security."

exceptions := [e | some e in object.get(config, "exceptions", []); is_string(e); e != ""]

deny_with(reason, detail) := {
	"rule_id": "BUILTIN-GIT-BLOCK-NO-VERIFY",
	"reason": sprintf("%s (git_block_no_verify: %s)", [reason, detail]),
	"severity": "HIGH",
}

command := input.tool_input.command if {
	input.hook_event_name == "PreToolUse"
	input.tool_name == "Bash"
	is_string(input.tool_input.command)
}

# The command with quoted strings blanked (a commit message never counts), plus the contents of
# quoted strings that are themselves commands (`sh -c "git commit -n"`).
texts contains regex.replace(command, `'[^']*'|"(\\.|[^"\\])*"`, "''")

texts contains inner if {
	some quoted in regex.find_n(`'[^']*'|"(\\.|[^"\\])*"`, command, -1)
	inner := substring(quoted, 1, count(quoted) - 2)
	regex.match(`^\s*(\S+=\S*\s+)*git\s`, inner)
}

# git segments: {text, sub (the subcommand), args (the words after it)}
git_commands contains {"text": seg, "sub": sub, "args": args} if {
	some text in texts
	some seg in commands.segments(text)
	not excepted(seg)
	m := regex.find_all_string_submatch_n(`^(?:\S+=\S*\s+)*(?:\S*/)?git((?:\s+(?:-C\s+\S+|-c\s+\S+|--\S+|-[a-zA-Z]))*)\s+([a-z][a-z-]*)(.*)$`, seg, 1)
	count(m) == 1
	sub := m[0][2]
	args := split(trim_space(m[0][3]), " ")
}

excepted(seg) if {
	some e in exceptions
	contains(seg, e)
}

no_verify_flag(word) if regex.match(`^--no-veri(f|fy)?$`, word)

# -n in a short cluster before any option that takes a value (-m, -F, -c, -C, -t, -S, -u)
commit_short_n(word) if {
	regex.match(`^-[a-zA-Z]+$`, word)
	regex.match(`^-[^mFcCtSu]*n`, word)
}

deny contains deny_with(message, sprintf("`git %s` with %s", [g.sub, word])) if {
	some g in git_commands
	g.sub in {"commit", "push", "merge", "pull", "rebase", "cherry-pick", "revert", "am"}
	some word in g.args
	no_verify_flag(word)
}

deny contains deny_with(message, sprintf("`git commit` with %s (same as --no-verify)", [word])) if {
	some g in git_commands
	g.sub == "commit"
	some word in g.args
	commit_short_n(word)
}

# Hook disabling ----------------------------------------------------------------------------

deny contains deny_with(hooks_message, "`git -c core.hooksPath=…` overrides the hooks") if {
	some text in texts
	regex.match(`(?i)(^|\s)git(\s+\S+)*\s+-c\s+['"]?core\.hookspath=`, text)
	not excepted(text)
}

deny contains deny_with(hooks_message, "`git config core.hooksPath` pointing the hooks to nothing") if {
	some text in texts
	regex.match(`(?i)(^|\s)git(\s+\S+)*\s+config(\s+-\S+)*\s+core\.hookspath\s+(/dev/null|''|/var/empty)(\s|$|[;&|])`, text)
}

deny contains deny_with(hooks_message, sprintf("%s disables hook runners", [v])) if {
	some v in regex.find_n(`(^|\s)(HUSKY=0|HUSKY_SKIP_HOOKS=1|SKIP_GIT_HOOKS=1)`, command, 1)
}

deny contains deny_with(hooks_message, sprintf("`%s` on .git/hooks", [seg.verb])) if {
	some seg in commands.analyze(command).segments
	contains(seg.text, ".git/hooks")
	hook_tampering(seg)
}

hook_tampering(seg) if seg.verb in {"rm", "unlink", "trash", "mv", "shred", "truncate", "ln", "rmdir"}

hook_tampering(seg) if {
	seg.verb == "chmod"
	regex.match(`(^|\s)([ugoa]*-[rwxX]*x|0*[0-7]?[0246][0-7]{2})(\s|$)`, seg.text)
}

hook_tampering(seg) if regex.match(`>\s*\S*\.git/hooks`, seg.text)

hook_tampering(seg) if {
	seg.verb in {"sed", "perl"}
	regex.match(`(^|\s)-[a-zA-Z]*i`, seg.text)
}

deny contains deny_with(hooks_message, sprintf("%s edits a git hook (%s)", [input.tool_name, path])) if {
	input.hook_event_name == "PreToolUse"
	input.tool_name != "Bash"
	some path in hook_targets
	contains(path, "/.git/hooks/")
}

hook_targets contains input.resolved_file_path if is_string(input.resolved_file_path)

hook_targets contains p if some p in object.get(input, "affected_files", [])
