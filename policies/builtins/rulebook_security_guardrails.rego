# METADATA
# title: rulebook_security_guardrails — the agent can neither read nor change Cupcake's configuration
# description: >-
#   Config (input.builtin_config.rulebook_security_guardrails): message, protected_paths (default
#   [".cupcake/"]; builtin_config.py adds the global config dir), home. Halts any tool whose target
#   (resolved_file_path, symlinks followed; apply_patch files) is protected; Glob/Grep whose
#   pattern, path or include names or can expand into it; Bash commands that name it, operate on
#   it (resolved operands), use a glob reaching it, run a script mentioning it, create links
#   involving it, or destroy a parent directory; any other tool (Task, WebFetch, MCP tools, …)
#   whose arguments mention it.
# custom:
#   severity: HIGH
#   id: BUILTIN-RULEBOOK-SECURITY
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.rulebook_security_guardrails

import data.cupcake.system.commands
import data.cupcake.system.paths
import rego.v1

config := object.get(input, ["builtin_config", "rulebook_security_guardrails"], {})

message := object.get(config, "message", "Cupcake configuration files are protected from modification")

compiled := [paths.compile(p, object.get(config, "home", ""), input.cwd) |
	some p in object.get(config, "protected_paths", [".cupcake/"])
	is_string(p)
	p != ""
]

decision(detail) := {
	"rule_id": "BUILTIN-RULEBOOK-SECURITY",
	"reason": sprintf("%s (rulebook_security_guardrails: %s)", [message, detail]),
	"severity": "HIGH",
}

pre if input.hook_event_name == "PreToolUse"

# ------------------------------------------------------------------------------ file targets, any tool

halt contains decision(sprintf("blocked %s on %s (protected path '%s')", [input.tool_name, path, c.pattern])) if {
	pre
	some path in targets
	some c in compiled
	paths.matches(path, c)
}

targets contains input.resolved_file_path if is_string(input.resolved_file_path)

targets contains path if some path in object.get(input, "affected_files", [])

# ------------------------------------------------------------------------------ Glob / Grep / List

search_tools := {"Glob", "Grep", "List"}

halt contains decision(sprintf("blocked %s %s '%s' naming protected path '%s'", [input.tool_name, key, text, c.pattern])) if {
	pre
	input.tool_name in search_tools
	some key in ["pattern", "include", "path"]
	text := input.tool_input[key]
	is_string(text)
	some c in compiled
	paths.mentioned(text, c)
}

halt contains decision(sprintf("blocked %s pattern '%s', which can reach protected path '%s'", [input.tool_name, glob, c.pattern])) if {
	pre
	input.tool_name in search_tools
	some key in ["pattern", "include"]
	glob := input.tool_input[key]
	is_string(glob)
	regex.match(`[*?\[]`, glob)
	some c in compiled
	paths.glob_reaches(glob, search_base, c)
}

search_base := input.resolved_file_path if is_string(input.resolved_file_path)

else := input.cwd

# ------------------------------------------------------------------------------ Bash

command := input.tool_input.command if {
	pre
	input.tool_name == "Bash"
	is_string(input.tool_input.command)
}

cmd := commands.analyze(command)

base := paths.dir_form(paths.lexical(input.tool_input.workdir, input.cwd)) if {
	is_string(input.tool_input.workdir)
	input.tool_input.workdir != ""
} else := input.cwd

halt contains decision("symlink creation involving protected path is not permitted") if {
	cmd.links
	some c in compiled
	paths.mentioned(command, c)
}

halt contains decision(sprintf("detected protected path reference in bash command ('%s')", [c.pattern])) if {
	not cmd.links
	some c in compiled
	paths.mentioned(command, c)
}

halt contains decision(sprintf("the command operates on %s (protected path '%s')", [dir, c.pattern])) if {
	command
	some dir in object.get(input, "affected_parent_directories", [])
	some c in compiled
	paths.matches(dir, c)
}

halt contains decision(sprintf("the command uses the glob '%s', which can reach protected path '%s'", [word, c.pattern])) if {
	some word in cmd.glob_words
	some c in compiled
	paths.glob_reaches(word, base, c)
}

halt contains decision(sprintf("'%s' would be affected by the operation on %s", [c.pattern, dir])) if {
	some dir in commands.destructive_targets(cmd, base, object.get(input, "affected_parent_directories", []))
	some c in compiled
	paths.contains_protected(dir, c)
}

halt contains decision(sprintf("script %s mentions protected path '%s'", [script.path, c.pattern])) if {
	command
	some script in executed_scripts
	some c in compiled
	paths.mentioned(script.content, c)
}

executed_scripts := s if {
	s := input.executed_scripts
	is_array(s)
} else := [{"path": input.executed_script_path, "content": input.executed_script_content}] if {
	is_string(input.executed_script_content)
} else := []

# ------------------------------------------------------------------------------ every other tool

# Tools whose arguments are checked above, or are file contents rather than places.
checked_tools := {"Bash", "Glob", "Grep", "List", "Read", "Edit", "Write", "ApplyPatch", "Patch", "MultiEdit", "NotebookEdit", "TodoWrite"}

halt contains decision(sprintf("%s arguments mention protected path '%s'", [input.tool_name, c.pattern])) if {
	pre
	not input.tool_name in checked_tools
	some value in argument_strings
	some c in compiled
	paths.mentioned(value, c)
}

argument_strings contains value if {
	walk(object.get(input, "tool_input", {}), [_, value])
	is_string(value)
}
