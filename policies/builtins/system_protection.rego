# METADATA
# title: system_protection — critical system paths and persistence files are off limits (global rulebook)
# description: >-
#   Config (input.builtin_config.system_protection): message, additional_paths (`~` expanded),
#   home, on_uncertain (ask|deny|allow, default ask). Matches RESOLVED paths (realpath: /lib →
#   /usr/lib, /bin → /usr/bin are both listed) from every tool (input.tool_paths, Bash effects).
#   Halts writes, deletes and links of system directories (/etc, /usr/{bin,sbin,lib*}, /bin,
#   /sbin, /lib*, /boot, /dev, /proc, /sys, /var/lib, /var/spool/cron, /root, macOS and Windows
#   system dirs), shell start-up and persistence files in the home directory (~/.bashrc,
#   ~/.profile, ~/.zshrc, fish config, systemd user units, autostart, ~/.ssh, ~/.gitconfig,
#   ~/.local/bin, …), recursive deletes of `/`, `~` or any ancestor of those, privileged
#   commands (sudo, doas, su, pkexec), scheduling commands (crontab, at, systemctl enable,
#   launchctl load) and file-tool reads of system paths; Bash reads of system files stay
#   allowed except secret ones (/etc/shadow, /etc/sudoers, /root, /proc/*/environ). Opaque
#   changes answer `on_uncertain`. /dev/null, /dev/stdout and similar devices are harmless.
# custom:
#   severity: CRITICAL
#   id: GLOBAL-BUILTIN-SYSTEM-PROTECTION
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.system_protection

import data.cupcake.system.effects
import data.cupcake.system.paths
import data.cupcake.system.tables
import rego.v1

config := object.get(input, ["builtin_config", "system_protection"], {})

message := object.get(config, "message", "Access to critical system path blocked")

on_uncertain := object.get(config, "on_uncertain", "ask")

home := trim_right(object.get(config, "home", ""), "/")

harmless_path(p) if p in tables.sys_harmless

harmless_path(p) if startswith(p, "/dev/fd/")

harmless_path(p) if startswith(p, "/dev/pts/")

harmless_path(p) if startswith(p, "/proc/self/fd/")

locations := array.concat(
	array.concat(tables.sys_system_dirs, [concat("/", [home, f]) | home != ""; some f in tables.sys_home_files]),
	[p | some x in object.get(config, "additional_paths", []); is_string(x); x != ""; p := lower(trim_right(x, "/"))],
)

# The home directory of root lies below /root: its own files are persistence files, the rest
# is the project's.
own_home(loc) if {
	home != ""
	loc == lower(home)
}

protected(p) if {
	some loc in locations
	not own_home(loc)
	paths.within(p, loc)
	not harmless_path(p)
}

protected(p) if {
	home != ""
	some f in tables.sys_home_files
	paths.within(p, lower(concat("/", [home, f])))
}

decision(detail) := {
	"rule_id": "GLOBAL-BUILTIN-SYSTEM-PROTECTION",
	"reason": concat("", [message, " (system_protection: ", detail, ")"]),
	"severity": "CRITICAL",
}

halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path])) if {
	some t in effects.changes
	protected(lower(t.path))
}

# File tools (and MCP tools) may not even read system paths; Bash reads only the secret ones.
halt contains decision(concat("", [input.tool_name, " reads ", t.path])) if {
	some t in effects.reads
	t.via != "shell"
	protected(lower(t.path))
}

halt contains decision(concat("", ["the command reads ", t.path])) if {
	some t in effects.reads
	some s in tables.sys_secret_reads
	paths.within(lower(t.path), s)
}

halt contains decision(concat("", ["the command reads ", t.path])) if {
	some t in effects.reads
	startswith(t.path, "/proc/")
	endswith(t.path, "/environ")
}

# rm -rf /, rm -rf ~, rm -rf /usr, mv ~ …: a delete of an ancestor of a protected location.
halt contains decision(concat("", [input.tool_name, " ", t.access, " of ", t.path, " removes ", loc])) if {
	some t in effects.tree_changes
	d := trim_right(lower(t.path), "/")
	some loc in all_locations
	paths.within(loc, d)
	not protected(lower(t.path))
}

all_locations contains loc if some loc in locations

all_locations contains lower(home) if home != ""

halt contains decision(concat("", ["the glob ", g.pattern, " can expand to ", loc])) if {
	some g in effects.globs
	some loc in locations
	paths.glob_overlaps(g.pattern, {"anchored": split(loc, "/")})
}

# ------------------------------------------------------------------------------ commands

privileged_words contains w if {
	some c in effects.commands
	some w in array.concat(object.get(c, "wrappers", []), [c.name])
	w in tables.sys_privileged
}

halt contains decision(concat("", ["`", w, "` is not permitted"])) if some w in privileged_words

halt contains decision("privileged execution is not permitted") if {
	"privileged" in effects.facts
	count(privileged_words) == 0
}

# crontab FILE / crontab -e / crontab - (crontab -l only lists)
halt contains decision(concat("", ["`", c.name, "` installs a scheduled or persistent job"])) if {
	some c in effects.commands
	persistence(c)
}

persistence(c) if {
	c.name == "crontab"
	not listing_only(c)
}

persistence(c) if c.name in {"at", "batch", "anacron"}

persistence(c) if {
	c.name in {"systemctl", "launchctl", "loginctl"}
	some a in effects.args(c)
	a in {"enable", "link", "edit", "mask", "preset", "set-environment", "import-environment", "load", "bootstrap", "submit", "enable-linger", "revert", "add-wants", "add-requires", "set-property"}
}

listing_only(c) if {
	args := effects.args(c)
	count(args) > 0
	every a in args {
		a in {"-l", "-u", "--list"}
	}
}

# ------------------------------------------------------------------------------ uncertainty

uncertain contains r if some r in effects.uncertain_change

uncertain contains concat("", ["`", u.command, "` names ", u.path, "; what it does with it is unknown"]) if {
	some u in effects.unaccounted
	protected(u.lpath)
}

deny contains decision(concat("", ["cannot tell statically whether the command changes a system path (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "deny"
	count(uncertain) > 0
}

ask contains decision(concat("", ["cannot tell statically whether the command changes a system path (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "ask"
	not effects.floor_covers("system")
	count(uncertain) > 0
}
