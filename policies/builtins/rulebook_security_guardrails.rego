# METADATA
# title: rulebook_security_guardrails — the agent can neither change nor read Cupcake's own state
# description: >-
#   Config (input.builtin_config.rulebook_security_guardrails): message, on_uncertain
#   (ask|deny|allow, default ask), state_paths [{path, kind, dir, read_protected}] and path_dirs
#   (filled by the engine: project and global config, caches, plugin files, the executable, …),
#   protected_paths (pattern forms of cupcake.system.paths; default [".cupcake/"]: neither
#   readable nor writable). Halts every tool (file tools, MCP and unknown tools via
#   input.tool_paths, patches, Bash effects, Glob/Grep patterns, Task/agent prompts) that
#   writes, deletes, moves or links anything under a state path or a protected path, deletes
#   or moves one of their ancestors, or reads a read-protected one; creating or replacing a
#   file named `cupcake` in a PATH directory (path_dirs) halts too. Opaque Bash changes answer
#   `on_uncertain`.
# custom:
#   severity: HIGH
#   id: BUILTIN-RULEBOOK-SECURITY
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.rulebook_security_guardrails

import data.cupcake.system.effects
import data.cupcake.system.paths
import rego.v1

config := object.get(input, ["builtin_config", "rulebook_security_guardrails"], {})

message := object.get(config, "message", "Cupcake configuration files are protected from modification")

on_uncertain := object.get(config, "on_uncertain", "ask")

# Legacy patterns (also unreadable), and the engine's state paths.
compiled := [paths.compile(p, input.cwd) |
	some p in object.get(config, "protected_paths", [".cupcake/"])
	is_string(p)
	p != ""
]

state := [s |
	some s in object.get(config, "state_paths", [])
	is_object(s)
	is_string(s.path)
	s.path != ""
]

path_dirs := {lower(trim_right(d, "/")) | some d in object.get(config, "path_dirs", []); is_string(d); d != ""}

decision(detail) := {
	"rule_id": "BUILTIN-RULEBOOK-SECURITY",
	"reason": concat("", [message, " (rulebook_security_guardrails: ", detail, ")"]),
	"severity": "HIGH",
}

# `path` is the state entry or (dir entries) lies below it.
under(path, s) if lower(path) == lower(s.path)

under(path, s) if {
	object.get(s, "dir", false) == true
	startswith(lower(path), concat("", [trim_right(lower(s.path), "/"), "/"]))
}

# `path` is a state entry's ancestor (a recursive delete or move of it removes the entry).
holds(path, s) if paths.within(lower(s.path), trim_right(lower(path), "/"))

holds("/", _) := true

# ------------------------------------------------------------------------------ changes

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " (Cupcake ", object.get(s, "kind", "state"), ")"])) if {
	some t in effects.changes
	some s in state
	under(t.path, s)
}

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " removes Cupcake state ", s.path])) if {
	some t in effects.tree_changes
	some s in state
	holds(t.path, s)
	not under(t.path, s)
}

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " (protected path '", c.pattern, "')"])) if {
	some t in effects.targets
	some c in compiled
	paths.matches(t.path, c)
}

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " removes protected path '", c.pattern, "'"])) if {
	some t in effects.tree_changes
	some c in compiled
	paths.ancestor_of(t.path, c)
	not paths.matches(t.path, c)
}

halt contains decision(concat("", ["the glob ", g.pattern, " can reach Cupcake state ", s.path])) if {
	some g in effects.globs
	some s in state
	state_glob(g.pattern, s)
}

# A glob can name the state entry, something below a directory entry, or an ancestor.
state_glob(g, s) if {
	object.get(s, "dir", false) == true
	paths.glob_overlaps(g, paths.compile(s.path, "/"))
}

state_glob(g, s) if {
	object.get(s, "dir", false) != true
	count(split(g, "/")) <= count(split(s.path, "/"))
	paths.glob_overlaps(g, paths.compile(s.path, "/"))
}

halt contains decision(concat("", ["the glob ", g, " can reach protected path '", c.pattern, "'"])) if {
	some g in glob_words
	some c in compiled
	paths.glob_overlaps(g, c)
}

glob_words contains g.pattern if some g in effects.globs

glob_words contains g if some g in effects.read_globs

# A new or replaced executable named cupcake in a PATH directory.
halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, ": a `cupcake` on PATH would replace the real one"])) if {
	some t in effects.changes
	lower(effects.basename(t.path)) in {"cupcake", "cupcake-py"}
	lower(effects.dirname(t.path)) in path_dirs
}

# ------------------------------------------------------------------------------ reads

halt contains decision(concat("", [input.tool_name, " reads ", t.path, ", which is read-protected Cupcake state"])) if {
	some t in effects.reads
	some s in state
	object.get(s, "read_protected", false) == true
	under(t.path, s)
}

# ------------------------------------------------------------------------------ search tools and prompts

search_tools := {"Glob", "Grep", "List"}

halt contains decision(concat("", [input.tool_name, " ", key, " '", text, "' names protected Cupcake state"])) if {
	effects.pre
	input.tool_name in search_tools
	some key in ["pattern", "include", "path"]
	text := input.tool_input[key]
	is_string(text)
	names_state(lower(text))
}

# A Glob/Grep pattern that can expand into the state (`.cup*/**/*.rego`).
halt contains decision(concat("", [input.tool_name, " pattern '", text, "' can reach protected path '", c.pattern, "'"])) if {
	some text in search_globs
	some c in compiled
	paths.glob_overlaps(text, c)
}

halt contains decision(concat("", [input.tool_name, " pattern '", text, "' can reach read-protected Cupcake state ", s.path])) if {
	some text in search_globs
	some s in state
	object.get(s, "read_protected", false) == true
	state_glob(text, s)
}

search_globs contains concat("/", [trim_right(search_base, "/"), text]) if {
	effects.pre
	input.tool_name in search_tools
	some key in ["pattern", "include"]
	text := input.tool_input[key]
	is_string(text)
	paths.is_glob(text)
	not startswith(text, "/")
}

search_base := t.path if {
	some t in effects.targets
	t.via == "args.path"
} else := input.cwd

# Prompts and free text of other tools (Task, WebFetch, skills, MCP) that mention the state.
text_tools := {"Task", "WebFetch", "Skill", "TodoWrite"}

halt contains decision(concat("", [input.tool_name, " arguments mention protected Cupcake state"])) if {
	effects.pre
	input.tool_name in text_tools
	walk(object.get(input, "tool_input", {}), [_, value])
	is_string(value)
	names_state(lower(value))
}

# Names of the state as text: the state paths themselves and the `.cupcake` directory.
state_names contains lower(trim_right(s.path, "/")) if some s in state

state_names contains ".cupcake"

state_names contains concat("/", ["", c.norm]) if {
	some c in compiled
	not c.glob
}

names_state(text) if {
	some n in state_names
	contains(text, n)
}

# ------------------------------------------------------------------------------ uncertainty

uncertain contains r if some r in effects.uncertain_change

deny contains decision(concat("", ["cannot tell statically whether the command changes Cupcake's state (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "deny"
	count(uncertain) > 0
}

ask contains decision(concat("", ["cannot tell statically whether the command changes Cupcake's state (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "ask"
	count(uncertain) > 0
}
