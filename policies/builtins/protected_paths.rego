# METADATA
# title: protected_paths — configured paths are read-only for the agent
# description: >-
#   Config (input.builtin_config.protected_paths): message, paths (see cupcake.system.paths for
#   the pattern forms), home. Halts: edits/writes of a protected file by any tool (including MCP
#   tools with a path argument), apply_patch touching one, Bash commands that are not read-only
#   and name a protected path (directly, through a resolved operand, or a glob reaching it),
#   destructive commands on a parent directory (`rm -rf parent/*`), links to/from protected
#   paths, and inline or executed scripts mentioning one. Read-only Bash commands (every simple
#   command a reader such as cat/grep/ls, no redirection, no substitution) stay allowed.
# custom:
#   severity: HIGH
#   id: BUILTIN-PROTECTED-PATHS
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.protected_paths

import data.cupcake.system.commands
import data.cupcake.system.paths
import rego.v1

config := object.get(input, ["builtin_config", "protected_paths"], {})

message := object.get(config, "message", "This path is read-only and cannot be modified")

patterns := [p | some p in object.get(config, "paths", []); is_string(p); p != ""]

home := object.get(config, "home", "")

# Tools that only look at files or are checked by their own rules below.
non_writing_tools := {"Read", "Glob", "Grep", "List", "WebFetch", "Task", "Skill", "TodoWrite", "TodoRead", "Bash", "ApplyPatch"}

decision(rule_id, detail) := {
	"rule_id": rule_id,
	"reason": sprintf("%s (protected_paths: %s)", [message, detail]),
	"severity": "HIGH",
}

# ------------------------------------------------------------------------------ file tools

halt contains decision("BUILTIN-PROTECTED-PATHS", sprintf("%s matches protected path '%s'", [path, pattern])) if {
	input.hook_event_name == "PreToolUse"
	not input.tool_name in non_writing_tools
	path := input.resolved_file_path
	some pattern in patterns
	paths.matches(path, pattern)
}

halt contains decision("BUILTIN-PROTECTED-PATHS", sprintf("apply_patch changes %s, which matches protected path '%s'", [path, pattern])) if {
	input.hook_event_name == "PreToolUse"
	some path in object.get(input, "affected_files", [])
	some pattern in patterns
	paths.matches(path, pattern)
}

# ------------------------------------------------------------------------------ Bash

command := input.tool_input.command if {
	input.hook_event_name == "PreToolUse"
	input.tool_name == "Bash"
	is_string(input.tool_input.command)
}

base := b if {
	wd := input.tool_input.workdir
	is_string(wd)
	wd != ""
	b := paths.dir_form(paths.lexical(wd, input.cwd))
} else := input.cwd

links if commands.creates_symlink(command)

links if commands.creates_hardlink(command)

special if commands.inline_script(command)

special if links

# A command that is not read-only and reaches a protected path.
halt contains decision("BUILTIN-PROTECTED-PATHS", sprintf("the command %s; only read operations are allowed", [what])) if {
	not commands.read_only(command)
	not special
	some what in reaches
}

reaches contains sprintf("operates on %s, which matches protected path '%s'", [dir, pattern]) if {
	some dir in object.get(input, "affected_parent_directories", [])
	some pattern in patterns
	paths.matches(dir, pattern)
}

reaches contains sprintf("names protected path '%s'", [pattern]) if {
	some pattern in patterns
	paths.mentioned(command, pattern, home)
}

reaches contains sprintf("uses the glob '%s', which can reach protected path '%s'", [word, pattern]) if {
	some word in split(command, " ")
	some pattern in patterns
	paths.glob_reaches(word, base, pattern, input.cwd)
}

# Operations that change or remove what lies below a directory operand (find/sed only with a
# writing flag such as -delete or -i).
destructive := {"rm", "rmdir", "mv", "chmod", "chown", "chgrp", "shred", "truncate", "unlink", "rsync"}

destructive_segment(segment) if commands.verb(segment) in destructive

destructive_segment(segment) if {
	commands.verb(segment) in commands.readers
	not commands.reads_only(segment)
}

halt contains decision("BUILTIN-PROTECTED-PATHS-PARENT", sprintf("'%s' would be affected by the operation on %s", [pattern, dir])) if {
	some dir in parent_targets
	some pattern in patterns
	paths.contains_protected(dir, pattern, input.cwd)
}

# Operands of destructive simple commands, resolved lexically against the working directory.
parent_targets contains dir if {
	some segment in commands.segments(command)
	destructive_segment(segment)
	words := split(commands.without_wrappers(segment), " ")
	some i, word in words
	i > 0
	not startswith(word, "-")
	not move_destination(words, i)
	cut := regex.replace(word, `[*?\[].*$`, "")
	dir := paths.dir_form(paths.lexical(cut, base))
}

# The engine's resolved operands (symlinks followed) when no `cd` changes the directory.
parent_targets contains dir if {
	some segment in commands.segments(command)
	removes_or_changes_modes(segment)
	not changes_directory
	some dir in object.get(input, "affected_parent_directories", [])
}

removes_or_changes_modes(segment) if commands.verb(segment) in {"rm", "rmdir", "chmod", "chown", "chgrp", "shred", "truncate", "unlink"}

removes_or_changes_modes(segment) if {
	commands.verb(segment) in commands.readers
	not commands.reads_only(segment)
}

# The last operand of mv is where things go, not what is changed.
move_destination(words, i) if {
	commands.verb(concat(" ", words)) == "mv"
	i == count(words) - 1
}

changes_directory if {
	some segment in commands.segments(command)
	commands.verb(segment) in {"cd", "pushd", "popd"}
}

# Links from or to a protected path.
halt contains decision("BUILTIN-PROTECTED-PATHS", sprintf("creating a link involving protected path '%s'", [pattern])) if {
	links
	some pattern in patterns
	link_reaches(pattern)
}

link_reaches(pattern) if paths.mentioned(command, pattern, home)

link_reaches(pattern) if {
	some dir in object.get(input, "affected_parent_directories", [])
	paths.matches(dir, pattern)
}

# Interpreter code given inline, or a script file the command runs, that mentions a protected path.
halt contains decision("BUILTIN-PROTECTED-PATHS-SCRIPT", sprintf("inline script mentions '%s'", [pattern])) if {
	commands.inline_script(command)
	some pattern in patterns
	paths.mentioned(command, pattern, home)
}

halt contains decision("BUILTIN-PROTECTED-PATHS-SCRIPT", sprintf("script %s mentions '%s'", [script.path, pattern])) if {
	command
	some script in executed_scripts
	some pattern in patterns
	paths.mentioned(script.content, pattern, home)
}

executed_scripts := s if {
	s := input.executed_scripts
	is_array(s)
} else := [{"path": input.executed_script_path, "content": input.executed_script_content}] if {
	is_string(input.executed_script_content)
} else := []
