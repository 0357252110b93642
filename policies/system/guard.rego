# METADATA
# scope: package
# title: Cupcake's own state, for rulebook_security_guardrails
# description: >-
#   Reads input.builtin_config.rulebook_security_guardrails: `state_paths` (normalised once:
#   lower-cased path and its `path/` prefix), `path_dirs`, and the legacy `protected_paths`
#   patterns (default [".cupcake/"]). Helpers: under (a lower-cased path is the entry or below a
#   dir entry), holds (it is an ancestor of the entry), state_glob (a shell glob can reach the
#   entry), search_globs (Glob/Grep patterns joined to their base), names_state (free text names
#   the state). A library package, so the decision aggregator never walks these values.
# custom:
#   routing:
#     required_events: []
#     required_tools: []
#     required_signals: []
package cupcake.system.guard

import data.cupcake.system.effects
import data.cupcake.system.paths
import data.cupcake.system.tables
import rego.v1

config := object.get(input, ["builtin_config", "rulebook_security_guardrails"], {})

# Legacy patterns (also unreadable).
compiled := [paths.compile(p, input.cwd) |
	some p in object.get(config, "protected_paths", [".cupcake/"])
	is_string(p)
	p != ""
]

# The engine's state paths.
state := [object.union(s, {"lpath": lp, "prefix": concat("", [lp, "/"])}) |
	some s in object.get(config, "state_paths", [])
	is_object(s)
	is_string(s.path)
	s.path != ""
	lp := trim_right(lower(s.path), "/")
]

read_protected := [s | some s in state; object.get(s, "read_protected", false) == true]

path_dirs := {lower(trim_right(d, "/")) | some d in object.get(config, "path_dirs", []); is_string(d); d != ""}

# `lpath` (lower-cased) is the state entry or, for dir entries, lies below it.
under(lpath, s) if lpath == s.lpath

under(lpath, s) if {
	object.get(s, "dir", false) == true
	startswith(lpath, s.prefix)
}

# `lpath` is an ancestor of the entry (a recursive delete or move of it removes the entry).
holds(lpath, s) if startswith(s.lpath, concat("", [trim_right(lpath, "/"), "/"]))

# A glob can name the entry, something below a directory entry, or one of its ancestors.
state_glob(g, s) if {
	object.get(s, "dir", false) == true
	paths.glob_overlaps(g, {"anchored": split(s.lpath, "/")})
}

state_glob(g, s) if {
	object.get(s, "dir", false) != true
	count(split(g, "/")) <= count(split(s.lpath, "/"))
	paths.glob_overlaps(g, {"anchored": split(s.lpath, "/")})
}

# Unexpanded shell globs of the command (changes, and reads for the unreadable legacy paths).
glob_words contains g.pattern if some g in effects.globs

glob_words contains g if some g in effects.read_globs

# Glob/Grep patterns joined to the directory they search.
search_globs contains concat("/", [trim_right(search_base, "/"), text]) if {
	effects.pre
	input.tool_name in tables.guard_search_tools
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

# Names of the state as text: the state paths themselves, the `.cupcake` directory and the
# legacy plain patterns.
state_names contains s.lpath if some s in state

state_names contains ".cupcake"

state_names contains concat("/", ["", c.norm]) if {
	some c in compiled
	not c.glob
}

names_state(text) if {
	some n in state_names
	contains(text, n)
}
