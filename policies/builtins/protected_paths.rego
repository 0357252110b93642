# METADATA
# title: protected_paths — configured paths are read-only for the agent
# description: >-
#   Config (input.builtin_config.protected_paths): message, paths (pattern forms: see
#   cupcake.system.paths), home. Halts: edits/writes of a protected file by any tool (including
#   MCP tools with a path argument), apply_patch touching one, Bash commands that are not
#   read-only and reach a protected path (named in the text, a resolved operand, a glob that can
#   expand to it), destructive commands on a parent directory (`rm -rf parent/*`), links to or
#   from protected paths, and inline or executed scripts mentioning one. Read-only Bash commands
#   (every simple command a reader such as cat/grep/ls, no redirection, no substitution) pass.
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

compiled := [paths.compile(p, object.get(config, "home", ""), input.cwd) |
	some p in object.get(config, "paths", [])
	is_string(p)
	p != ""
]

# Tools that only look at files, or are checked by their own rules below.
non_writing_tools := {"Read", "Glob", "Grep", "List", "WebFetch", "Task", "Skill", "TodoWrite", "TodoRead", "Bash", "ApplyPatch"}

decision(rule_id, detail) := {
	"rule_id": rule_id,
	"reason": sprintf("%s (protected_paths: %s)", [message, detail]),
	"severity": "HIGH",
}

# ------------------------------------------------------------------------------ file tools

halt contains decision("BUILTIN-PROTECTED-PATHS", sprintf("%s matches protected path '%s'", [path, c.pattern])) if {
	input.hook_event_name == "PreToolUse"
	not input.tool_name in non_writing_tools
	path := input.resolved_file_path
	some c in compiled
	paths.matches(path, c)
}

halt contains decision("BUILTIN-PROTECTED-PATHS", sprintf("apply_patch changes %s, which matches protected path '%s'", [path, c.pattern])) if {
	input.hook_event_name == "PreToolUse"
	some path in object.get(input, "affected_files", [])
	some c in compiled
	paths.matches(path, c)
}

# ------------------------------------------------------------------------------ Bash

command := input.tool_input.command if {
	input.hook_event_name == "PreToolUse"
	input.tool_name == "Bash"
	is_string(input.tool_input.command)
	count(compiled) > 0
}

cmd := commands.analyze(command)

affected := object.get(input, "affected_parent_directories", [])

base := paths.dir_form(paths.lexical(input.tool_input.workdir, input.cwd)) if {
	is_string(input.tool_input.workdir)
	input.tool_input.workdir != ""
} else := input.cwd

# A command that is not read-only (and no link or inline script, reported below) reaching a
# protected path.
halt contains decision("BUILTIN-PROTECTED-PATHS", sprintf("the command %s; only read operations are allowed", [what])) if {
	not cmd.read_only
	not cmd.links
	not cmd.inline_script
	some what in reaches
}

reaches contains sprintf("operates on %s, which matches protected path '%s'", [dir, c.pattern]) if {
	some dir in affected
	some c in compiled
	paths.matches(dir, c)
}

reaches contains sprintf("names protected path '%s'", [c.pattern]) if {
	some c in compiled
	paths.mentioned(command, c)
}

reaches contains sprintf("uses the glob '%s', which can reach protected path '%s'", [word, c.pattern]) if {
	some word in cmd.glob_words
	some c in compiled
	paths.glob_reaches(word, base, c)
}

# Destructive operations on a directory that contains a protected path.
halt contains decision("BUILTIN-PROTECTED-PATHS-PARENT", sprintf("'%s' would be affected by the operation on %s", [c.pattern, dir])) if {
	some dir in commands.destructive_targets(cmd, base, affected)
	some c in compiled
	paths.contains_protected(dir, c)
}

# Links from or to a protected path.
halt contains decision("BUILTIN-PROTECTED-PATHS", sprintf("creating a link involving protected path '%s'", [c.pattern])) if {
	cmd.links
	some c in compiled
	link_reaches(c)
}

link_reaches(c) if paths.mentioned(command, c)

link_reaches(c) if {
	some dir in affected
	paths.matches(dir, c)
}

# Interpreter code given inline, or a script file the command runs, that mentions a protected path.
halt contains decision("BUILTIN-PROTECTED-PATHS-SCRIPT", sprintf("inline script mentions '%s'", [c.pattern])) if {
	cmd.inline_script
	some c in compiled
	paths.mentioned(command, c)
}

halt contains decision("BUILTIN-PROTECTED-PATHS-SCRIPT", sprintf("script %s mentions '%s'", [script.path, c.pattern])) if {
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
