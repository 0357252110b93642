# METADATA
# title: cupcake_exec_protection — the agent cannot run Cupcake itself (global rulebook)
# description: >-
#   Config (input.builtin_config.cupcake_exec_protection): message, allowed_commands (a command
#   line equal to an allowed one, or starting with it plus a space, made of one simple command),
#   on_uncertain (ask|deny|allow, default ask). Reads the analysed commands (input.shell:
#   quoting, variables, wrappers, `bash -c`, eval and scripts resolved). Halts a command named
#   cupcake / cupcake-py (any path), an executed file named so, `python -m cupcake_py`, runners
#   (uvx, npx, pipx run, uv run, poetry run) and installers (pip, cargo, brew, apt, npm …)
#   naming it, and aliases or functions defined to it. A command whose name is computed at run
#   time (`$(which cupcake)`, `$c`) answers `on_uncertain`.
# custom:
#   severity: CRITICAL
#   id: GLOBAL-BUILTIN-CUPCAKE-EXEC
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.builtins.cupcake_exec_protection

import data.cupcake.system.effects
import data.cupcake.system.tables
import rego.v1

config := object.get(input, ["builtin_config", "cupcake_exec_protection"], {})

message := object.get(config, "message", "Direct execution of Cupcake binary is not permitted")

on_uncertain := object.get(config, "on_uncertain", "ask")

# A word naming cupcake: `cupcake`, `/x/cupcake`, `cupcake_py.cli`, `cupcake-py==1.0`, `x=cupcake`.
names_cupcake(word) if {
	some w in [word, last_of(split(word, "="))]
	names_cupcake_word(lower(effects.basename(w)))
}

last_of(parts) := parts[count(parts) - 1]

names_cupcake_word(name) if name in tables.cep_cupcake_names

names_cupcake_word(name) if startswith(name, "cupcake_py.")

names_cupcake_word(name) if {
	some sep in ["=", "@", "[", "<", ">"]
	split(name, sep)[0] in tables.cep_cupcake_names
}

allowed if {
	count(effects.commands) == 1
	some a in object.get(config, "allowed_commands", [])
	is_string(a)
	prefix_allowed(lower(trim_space(a)))
}

prefix_allowed(a) if trim_space(effects.source) == a

prefix_allowed(a) if startswith(trim_space(effects.source), concat("", [a, " "]))

decision(detail) := {
	"rule_id": "GLOBAL-BUILTIN-CUPCAKE-EXEC",
	"reason": concat("", [message, " (cupcake_exec_protection: ", detail, ")"]),
	"severity": "CRITICAL",
}

runs contains concat("", ["the command runs `", c.name, "`"]) if {
	some c in effects.commands
	is_string(c.name)
	names_cupcake(c.name)
}

runs contains concat("", ["`", c.name, "` runs or installs cupcake"]) if {
	some c in effects.commands
	c.name in tables.cep_runners
	some a in effects.args(c)
	names_cupcake(a)
}

runs contains concat("", ["`", c.name, " -m ", m, "` runs cupcake"]) if {
	some c in effects.commands
	startswith(object.get(c, "name", ""), "python")
	args := effects.args(c)
	some i, a in args
	a == "-m"
	m := args[i + 1]
	names_cupcake(m)
}

runs contains concat("", ["the command executes ", t.path]) if {
	some t in effects.targets
	t.access == "execute"
	names_cupcake(t.path)
}

halt contains decision(r) if {
	not allowed
	some r in runs
}

uncertain contains concat("", ["a command name is computed at run time: ", r]) if {
	some c in effects.commands
	not is_string(c.name)
	r := concat("; ", array.concat(object.get(c, "opaque", []), ["unknown"]))
}

uncertain contains "the command was not analysed" if {
	effects.bash
	not effects.analysed
}

deny contains decision(concat("", ["cannot tell statically which program runs (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "deny"
	not allowed
	count(uncertain) > 0
}

ask contains decision(concat("", ["cannot tell statically which program runs (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "ask"
	not effects.floor_covers("state_paths")
	not allowed
	count(uncertain) > 0
}
