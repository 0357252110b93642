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
#   file named `cupcake`, `git`, `bash`, `sh` or `rg` in a PATH directory (path_dirs) halts too. Opaque Bash changes answer
#   `on_uncertain`. A Bash command that visibly reaches a process outside the kernel floor
#   (tmux/screen, systemd-run/D-Bus, at/crontab, a Unix or abstract socket client, ssh to this
#   machine) answers `on_uncertain` too, with or without the floor.
# custom:
#   severity: HIGH
#   id: BUILTIN-RULEBOOK-SECURITY
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.rulebook_security_guardrails

import data.cupcake.system.effects
import data.cupcake.system.guard
import data.cupcake.system.paths
import data.cupcake.system.tables
import rego.v1

config := object.get(input, ["builtin_config", "rulebook_security_guardrails"], {})

message := object.get(config, "message", "Cupcake configuration files are protected from modification")

on_uncertain := object.get(config, "on_uncertain", "ask")

decision(detail) := {
	"rule_id": "BUILTIN-RULEBOOK-SECURITY",
	"reason": concat("", [message, " (rulebook_security_guardrails: ", detail, ")"]),
	"severity": "HIGH",
}

# ------------------------------------------------------------------------------ changes

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " (Cupcake ", object.get(s, "kind", "state"), ")"])) if {
	some t in effects.changes
	some s in guard.state
	guard.under(t.lpath, s)
}

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " removes Cupcake state ", s.path])) if {
	some t in effects.tree_changes
	some s in guard.state
	guard.holds(t.lpath, s)
}

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " (protected path '", c.pattern, "')"])) if {
	some t in effects.targets
	some c in guard.compiled
	paths.matches(t.path, c)
}

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " removes protected path '", c.pattern, "'"])) if {
	some t in effects.tree_changes
	some c in guard.compiled
	paths.ancestor_of(t.path, c)
	not paths.matches(t.path, c)
}

halt contains decision(concat("", ["the glob ", g.pattern, " can reach Cupcake state ", s.path])) if {
	some g in effects.globs
	some s in guard.state
	guard.state_glob(g.pattern, s)
}

halt contains decision(concat("", ["the glob ", g, " can reach protected path '", c.pattern, "'"])) if {
	some g in guard.glob_words
	some c in guard.compiled
	paths.glob_overlaps(g, c)
}

# A new or replaced executable named cupcake (or another program run outside the floor) in a PATH directory.
halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, ": a `", effects.basename(t.lpath), "` on PATH would replace the real one"])) if {
	some t in effects.changes
	effects.basename(t.lpath) in tables.guard_path_programs
	effects.dirname(t.lpath) in guard.path_dirs
}

# ------------------------------------------------------------------------------ reads

halt contains decision(concat("", [input.tool_name, " reads ", t.path, ", which is read-protected Cupcake state"])) if {
	some t in effects.reads
	some s in guard.read_protected
	guard.under(t.lpath, s)
}

# ------------------------------------------------------------------------------ search tools and prompts

halt contains decision(concat("", [input.tool_name, " ", key, " '", text, "' names protected Cupcake state"])) if {
	effects.pre
	input.tool_name in tables.guard_search_tools
	some key in ["pattern", "include", "path"]
	text := input.tool_input[key]
	is_string(text)
	guard.names_state(lower(text))
}

# A Glob/Grep pattern that can expand into the unreadable state (`.cup*/**/*.rego`).
halt contains decision(concat("", [input.tool_name, " pattern '", text, "' can reach protected path '", c.pattern, "'"])) if {
	some text in guard.search_globs
	some c in guard.compiled
	paths.glob_overlaps(text, c)
}

halt contains decision(concat("", [input.tool_name, " pattern '", text, "' can reach read-protected Cupcake state ", s.path])) if {
	some text in guard.search_globs
	some s in guard.read_protected
	guard.state_glob(text, s)
}

# Prompts and free text of other tools (Task, WebFetch, skills, todos) that name the state.
halt contains decision(concat("", [input.tool_name, " arguments mention protected Cupcake state"])) if {
	effects.pre
	input.tool_name in tables.guard_text_tools
	walk(object.get(input, "tool_input", {}), [_, value])
	is_string(value)
	guard.names_state(lower(value))
}

# ------------------------------------------------------------------------------ processes outside

# A process outside the kernel floor acts for whoever reaches it: a terminal multiplexer types
# into the user's shell, systemd or D-Bus starts programs, `ssh localhost` is a new login, a Unix
# socket (abstract, or bound after the profile) is some service. The floor hides the sockets it
# knows of but cannot contain what such a process does, so a command that visibly reaches one is
# uncertain, with or without the floor (on_uncertain; never relaxed by it).
outside contains concat("", ["`", c.name, "` talks to a server outside the sandbox"]) if {
	some c in effects.commands
	c.name in tables.guard_outside_servers
}

outside contains concat("", ["`", w, "` talks to a server outside the sandbox"]) if {
	some c in effects.commands
	some w in object.get(c, "wrappers", [])
	w in tables.guard_outside_servers
}

outside contains concat("", ["`", c.name, "` connects to a Unix socket (", a, ")"]) if {
	some c in effects.commands
	some a in effects.args(c)
	some w in tables.guard_outside_words
	contains(lower(a), w)
}

outside contains concat("", ["`", c.name, " ", a, "` logs in to this machine"]) if {
	some c in effects.commands
	c.name in tables.guard_remote_shells
	some a in effects.args(c)
	loopback(regex.replace(lower(a), "^[^@]*@", ""))
}

# `crontab -l` only lists; any other crontab call installs jobs cron runs outside the sandbox.
outside contains "`crontab` installs jobs that run outside the sandbox" if {
	some c in effects.commands
	c.name == "crontab"
	not "-l" in effects.args(c)
}

outside contains concat("", ["`", c.name, " -U` connects to a Unix socket"]) if {
	some c in effects.commands
	c.name in {"nc", "ncat", "netcat"}
	"-U" in effects.args(c)
}

loopback(host) if host in tables.guard_loopback

loopback(host) if {
	some h in tables.guard_loopback
	startswith(host, concat("", [h, ":"]))
}

# ------------------------------------------------------------------------------ uncertainty

uncertain contains r if some r in effects.uncertain_change

uncertain contains concat("", ["`", u.command, "` names Cupcake state ", u.path, "; what it does with it is unknown"]) if {
	some u in effects.unaccounted
	some s in guard.state
	guard.under(u.lpath, s)
}

uncertain contains concat("", ["`", u.command, "` names ", u.path, " (protected path '", c.pattern, "'); what it does with it is unknown"]) if {
	some u in effects.unaccounted
	some c in guard.compiled
	paths.matches(u.path, c)
}

deny contains decision(concat("", ["cannot tell statically whether the command changes Cupcake's state (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "deny"
	count(uncertain) > 0
}

deny contains decision(concat("", ["the command reaches a process outside the sandbox (", effects.first_reason(outside), ")"])) if {
	effects.bash
	on_uncertain == "deny"
	count(outside) > 0
}

ask contains decision(concat("", ["cannot tell statically whether the command changes Cupcake's state (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "ask"
	not effects.floor_covers("state_paths")
	count(uncertain) > 0
}

ask contains decision(concat("", ["the command reaches a process outside the sandbox, which the kernel floor does not contain (", effects.first_reason(outside), ")"])) if {
	effects.bash
	on_uncertain == "ask"
	count(outside) > 0
}
