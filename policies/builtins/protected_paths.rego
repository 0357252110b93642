# METADATA
# title: protected_paths — configured paths are read-only for the agent
# description: >-
#   Config (input.builtin_config.protected_paths): message, paths (pattern forms: see
#   cupcake.system.paths), on_uncertain (ask|deny|allow, default ask). Halts any tool call that
#   writes, deletes or links a protected path: file tools, MCP and unknown tools (every path
#   argument, input.tool_paths), patches, and Bash commands by their analysed effects
#   (input.shell: redirections, cp/mv/ln/tee/sed -i/…, nested `bash -c`/eval/scripts, expanded
#   globs, hard links to protected files). Recursive deletes or moves of an ancestor (`rm -rf
#   .`, `rm -rf /`) and shell globs that can expand to a protected path halt too. Reading stays
#   allowed. When a write/delete/link target cannot be known statically (`rm -rf $(ls)`,
#   `xargs rm`, inline interpreter code), the answer is `on_uncertain`, with the reason.
# custom:
#   severity: HIGH
#   id: BUILTIN-PROTECTED-PATHS
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.protected_paths

import data.cupcake.system.effects
import data.cupcake.system.paths
import rego.v1

config := object.get(input, ["builtin_config", "protected_paths"], {})

message := object.get(config, "message", "This path is read-only and cannot be modified")

on_uncertain := object.get(config, "on_uncertain", "ask")

compiled := [paths.compile(p, input.cwd) |
	some p in object.get(config, "paths", [])
	is_string(p)
	p != ""
]

decision(rule_id, detail) := {
	"rule_id": rule_id,
	"reason": concat("", [message, " (protected_paths: ", detail, ")"]),
	"severity": "HIGH",
}

verb := {"write": "writes", "delete": "deletes", "link": "links"}

halt contains decision("BUILTIN-PROTECTED-PATHS", concat("", [
	input.tool_name, " ", verb[t.access], " ", t.path, ", which matches protected path '", c.pattern, "'",
])) if {
	some t in effects.changes
	some c in compiled
	paths.matches(t.path, c)
}

# rm -rf / mv / chmod -R of a directory holding a protected path.
halt contains decision("BUILTIN-PROTECTED-PATHS-PARENT", concat("", [
	"'", c.pattern, "' would be affected by the ", t.access, " of ", t.path,
])) if {
	some t in effects.tree_changes
	some c in compiled
	paths.ancestor_of(t.path, c)
	not paths.matches(t.path, c)
}

halt contains decision("BUILTIN-PROTECTED-PATHS", concat("", [
	"the glob ", g.pattern, " can expand to protected path '", c.pattern, "'",
])) if {
	some g in effects.globs
	some c in compiled
	paths.glob_overlaps(g.pattern, c)
}

uncertain contains r if {
	count(compiled) > 0
	some r in effects.uncertain_change
}

uncertain contains concat("", ["`", u.command, "` names ", u.path, " (protected path '", c.pattern, "'); what it does with it is unknown"]) if {
	some u in effects.unaccounted
	some c in compiled
	paths.matches(u.path, c)
}

deny contains decision("BUILTIN-PROTECTED-PATHS-UNCERTAIN", concat("", [
	"cannot tell statically whether the command changes a protected path (", effects.first_reason(uncertain), ")",
])) if {
	on_uncertain == "deny"
	count(uncertain) > 0
}

ask contains decision("BUILTIN-PROTECTED-PATHS-UNCERTAIN", concat("", [
	"cannot tell statically whether the command changes a protected path (", effects.first_reason(uncertain), ")",
])) if {
	on_uncertain == "ask"
	not effects.floor_covers("protected_paths")
	count(uncertain) > 0
}
