# METADATA
# title: system_protection — critical system paths are off limits (global rulebook)
# description: >-
#   Config (input.builtin_config.system_protection): message, additional_paths (honoured; `~`
#   expanded), home. Halts file tools on system paths (resolved, symlinks followed) and Bash
#   commands that use sudo/doas/su, operate on a system path (resolved operands) or name one while
#   not read-only. /dev/null, /dev/stdout and similar harmless devices are allowed.
# custom:
#   severity: CRITICAL
#   id: GLOBAL-BUILTIN-SYSTEM-PROTECTION
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.system_protection

import data.cupcake.system.commands
import data.cupcake.system.paths
import rego.v1

config := object.get(input, ["builtin_config", "system_protection"], {})

message := object.get(config, "message", "Access to critical system path blocked")

home := object.get(config, "home", "")

system_paths := [
	"/etc/", "/system/", "/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/", "/boot/", "/lib/", "/lib64/", "/sys/", "/proc/",
	"/dev/", "/root/", "/var/log/secure", "/var/log/auth", "/library/launchagents/", "/library/launchdaemons/",
	"/library/preferences/", "/private/etc/", "/private/var/", "c:/windows/", "c:\\windows\\",
]

home_paths := [concat("", [home, p]) | home != ""; some p in ["/.ssh/", "/library/launchagents/", "/.gnupg/", "/.config/", "/.local/share/keyrings/"]]

# /root/ is another user's home, except for root itself: then only its sensitive parts
# (home_paths) are critical, so projects under /root stay usable.
own_home(p) if {
	home != ""
	trim_right(lower(home), "/") == trim_right(p, "/")
}

compiled := [paths.compile(p, home, input.cwd) |
	some p in array.concat(array.concat([s | some s in system_paths; not own_home(s)], home_paths), [x | some x in object.get(config, "additional_paths", []); is_string(x); x != ""])
]

harmless(path) if regex.match(`^/dev/(null|stdin|stdout|stderr|tty|zero|random|urandom|fd(/[0-9]+)?)$`, path)

decision(detail) := {"rule_id": "GLOBAL-BUILTIN-SYSTEM-PROTECTION", "reason": sprintf("%s (system_protection: %s)", [message, detail]), "severity": "CRITICAL"}

halt contains decision(sprintf("%s on %s", [input.tool_name, path])) if {
	input.hook_event_name == "PreToolUse"
	input.tool_name != "Bash"
	some path in {p | p := input.resolved_file_path} | {p | some p in object.get(input, "affected_files", [])}
	not harmless(path)
	some c in compiled
	paths.matches(path, c)
}

command := input.tool_input.command if {
	input.hook_event_name == "PreToolUse"
	input.tool_name == "Bash"
	is_string(input.tool_input.command)
}

cmd := commands.analyze(command)

halt contains decision(sprintf("`%s` is not permitted", [trim_space(m)])) if {
	some m in regex.find_n(`(^|[\s;&|(])(sudo|doas|su|pkexec)(\s|$)`, command, 1)
}

halt contains decision(sprintf("the command operates on %s", [dir])) if {
	command
	some dir in object.get(input, "affected_parent_directories", [])
	not harmless(dir)
	some c in compiled
	paths.matches(dir, c)
}

halt contains decision(sprintf("the command references critical system path '%s'", [c.pattern])) if {
	not cmd.read_only
	some c in compiled
	paths.mentioned(without_programs, c)
}

# The command without harmless devices and without programs run by absolute path
# (`/usr/bin/env python3 x.py` runs a system binary; it does not touch /usr/bin).
without_programs := regex.replace(
	regex.replace(command, `/dev/(null|stdin|stdout|stderr|tty|zero|u?random)`, " "),
	`(^|[;&|(]\s*|(sudo|env|exec|nohup|time|xargs)\s+)/\S+`, "$1",
)
