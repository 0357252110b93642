# METADATA
# title: git_block_no_verify — git hooks must run
# description: >-
#   Config (input.builtin_config.git_block_no_verify): message, exceptions (a git command whose
#   text `git <subcommand> <args…>` contains an exception string is not checked), on_uncertain
#   (ask|deny|allow, default ask). Reads the analysed git invocations (input.shell.git: after
#   global options, aliases, `-c`, `--config-env`, GIT_CONFIG_* variables, wrappers, `bash -c`
#   and scripts). Denies an invocation whose hooks are disabled (--no-verify/-n in any spelling,
#   core.hooksPath overrides, `git config core.hooksPath …`; commits made or refs moved without
#   hooks: commit-tree, update-ref, fast-import, `reset --soft` to a commit given by value, a
#   fetch writing refs of another repository, a commit or push in a repository other than the
#   project's such as a fresh clone), HUSKY=0 and similar switches, and any change to `.git/hooks`
#   or a non-git write of `.git/config` / `config.worktree` / `.git/commondir` by any tool. A git command
#   whose subcommand or arguments are computed at run time answers `on_uncertain`.
# custom:
#   severity: HIGH
#   id: BUILTIN-GIT-BLOCK-NO-VERIFY
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.git_block_no_verify

import data.cupcake.system.effects
import data.cupcake.system.tables
import rego.v1

config := object.get(input, ["builtin_config", "git_block_no_verify"], {})

message := object.get(config, "message", "Git operations with --no-verify are not permitted. Commit hooks must run for code quality and security checks.")

hooks_message := "Disabling git hooks is not permitted. Hooks are required for code quality and security."

on_uncertain := object.get(config, "on_uncertain", "ask")

exceptions := [e | some e in object.get(config, "exceptions", []); is_string(e); e != ""]

deny_with(reason, detail) := {
	"rule_id": "BUILTIN-GIT-BLOCK-NO-VERIFY",
	"reason": concat("", [reason, " (git_block_no_verify: ", detail, ")"]),
	"severity": "HIGH",
}

text(g) := concat(" ", array.concat(["git", object.get(g, "subcommand", "?")], [a | some a in object.get(g, "args", []); is_string(a)]))

excepted(g) if {
	some e in exceptions
	contains(text(g), e)
}

checked contains g if {
	some g in effects.git
	not excepted(g)
	not harmless_config(g)
}

# `git config user.email x` writes .git/config but cannot disable hooks: only hooksPath, aliases,
# includes, editors and whole-file edits can.
harmless_config(g) if {
	g.subcommand == "config"
	every a in object.get(g, "args", []) {
		is_string(a)
		not hook_relevant_config(lower(a))
	}
}

hook_relevant_config(a) if {
	some w in ["hookspath", "alias", "include", "core.", "--edit", "--file", "--blob", "--remove-section", "--rename-section", "--unset-all", "--replace-all", "--global", "--system"]
	contains(a, w)
}

hook_relevant_config(a) if a in {"-e", "-f"}

reason_text(g) := concat("; ", [r | some r in object.get(g, "reasons", []); is_string(r)]) if {
	count(object.get(g, "reasons", [])) > 0
} else := "hooks disabled"

deny contains deny_with(message, concat("", ["`git ", object.get(g, "subcommand", "?"), "`: ", reason_text(g)])) if {
	some g in checked
	g.hooks_disabled == true
	object.get(g, "subcommand", "") in tables.gnv_hook_running
}

deny contains deny_with(hooks_message, concat("", ["`git ", object.get(g, "subcommand", "?"), "`: ", reason_text(g)])) if {
	some g in checked
	g.hooks_disabled == true
	not object.get(g, "subcommand", "") in tables.gnv_hook_running
}

deny contains deny_with(hooks_message, concat("", [s, " disables hook runners"])) if {
	count(effects.git) > 0
	some s in tables.gnv_hook_switches
	contains(effects.source, s)
}

# ------------------------------------------------------------------------------ hook files

hook_file(p) if contains(concat("", [p, "/"]), "/.git/hooks/")

hook_file(p) if endswith(p, "/.git/hooks")

hook_file(p) if endswith(p, "/.git")

# a submodule's (or a linked worktree's) own git dir: its hooks run like the project's
hook_file(p) if {
	contains(p, "/.git/modules/")
	contains(concat("", [p, "/"]), "/hooks/")
}

hook_file(p) if endswith(p, "/.husky")

hook_file(p) if contains(p, "/.husky/")

hook_file(p) if endswith(p, "/.pre-commit-config.yaml")

deny contains deny_with(hooks_message, concat("", [input.tool_name, " ", t.access, " of ", t.path])) if {
	some t in effects.changes
	hook_file(t.path)
}

# .git/config (and a worktree's config.worktree) can set core.hooksPath: only git itself may write it.
deny contains deny_with(hooks_message, concat("", [input.tool_name, " ", t.access, " of ", t.path, " (it can set core.hooksPath)"])) if {
	some t in effects.changes
	git_config_file(t.path)
	not only_git
}

git_config_file(p) if endswith(p, "/.git/config")

git_config_file(p) if endswith(p, "/config.worktree")

# `commondir` makes git read config and hooks from the directory it names (a linked worktree's too).
git_config_file(p) if {
	contains(p, "/.git/")
	endswith(p, "/commondir")
}

# a submodule's config: `git status` in the project runs git there (core.fsmonitor …)
git_config_file(p) if {
	contains(p, "/.git/modules/")
	endswith(p, "/config")
}

only_git if {
	effects.bash
	every c in effects.commands {
		c.name == "git"
	}
}

# ------------------------------------------------------------------------------ uncertainty

uncertain contains "the git subcommand is computed at run time" if {
	some g in effects.git
	not is_string(g.subcommand)
}

uncertain contains concat("", ["`git ", g.subcommand, "` has arguments computed at run time"]) if {
	some g in checked
	g.subcommand in tables.gnv_hook_running
	args := object.get(g, "args", [])
	some i, a in args
	a == null
	not value_of_option(args, i)
}

# An opaque word right after an option that takes a value (`-m "$MSG"`) is that value, never
# a flag such as -n.
value_options := {"-m", "--message", "-F", "--file", "-C", "--reuse-message", "-c", "--reedit-message", "--author", "--date", "-t", "--template", "--cleanup", "-o", "--push-option", "--trailer", "-S", "--gpg-sign"}

value_of_option(args, i) if {
	i > 0
	args[i - 1] in value_options
}

uncertain contains concat("", ["a command whose name is computed at run time may run git: ", r]) if {
	some c in effects.commands
	not is_string(c.name)
	some r in effects.uncertain_change
	startswith(r, "command: ")
}

deny contains deny_with(hooks_message, concat("", ["cannot tell statically whether hooks run: ", effects.first_reason(uncertain)])) if {
	on_uncertain == "deny"
	count(uncertain) > 0
}

ask contains deny_with(hooks_message, concat("", ["cannot tell statically whether hooks run: ", effects.first_reason(uncertain)])) if {
	on_uncertain == "ask"
	count(uncertain) > 0
}
