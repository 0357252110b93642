package cupcake.policies.builtins.system_protection_test

import data.cupcake.policies.builtins.system_protection as sp
import rego.v1

cfg := {"system_protection": {"home": "/home/u", "additional_paths": ["/opt/corp/"]}}

no_effects := {"reads": [], "writes": [], "deletes": [], "links": [], "executes": []}

tool(name, path, access) := {
	"hook_event_name": "PreToolUse", "cwd": "/home/u/p", "tool_name": name, "tool_input": {},
	"tool_paths": [{"path": path, "original": path, "arg": "args.filePath", "access": access}], "builtin_config": cfg,
}

bash(commands, effects, patterns, extra) := {
	"hook_event_name": "PreToolUse", "cwd": "/home/u/p", "tool_name": "Bash", "tool_input": {"command": "…"},
	"tool_paths": [], "builtin_config": cfg,
	"shell": {
		"version": 1, "source": "…", "cwd": "/home/u/p", "parsed": true, "commands": commands,
		"effects": object.union(no_effects, effects), "patterns": object.union(no_effects, patterns),
		"opaque": object.get(extra, "opaque", []), "git": [], "facts": object.get(extra, "facts", []),
	},
}

cmd(argv, wrappers) := {"name": argv[0], "argv": argv, "wrappers": wrappers, "cwd": "/home/u/p", "redirects": [], "origin": "command", "depth": 0, "opaque": []}

halted(e) if count(sp.halt) > 0 with input as e

test_resolved_system_paths_and_aliases if {
	every path in [
		"/etc/passwd", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x", "/usr/bin/ls", "/bin/ls", "/usr/sbin/x", "/boot/vmlinuz",
		"/dev/sda", "/proc/sys/kernel/x", "/sys/x", "/var/lib/dpkg/status", "/root/.bashrc", "/var/spool/cron/crontabs/u",
		"/usr/local/bin/tool", "/opt/corp/x", "/lib64/ld-linux-x86-64.so.2",
	] {
		halted(tool("Write", path, "write"))
		halted(bash([], {"writes": [path]}, {}, {}))
		halted(bash([], {"deletes": [path]}, {}, {}))
	}
}

test_persistence_files if {
	every path in [
		"/home/u/.bashrc", "/home/u/.bash_profile", "/home/u/.profile", "/home/u/.zshrc", "/home/u/.zprofile",
		"/home/u/.config/fish/config.fish", "/home/u/.config/systemd/user/x.service", "/home/u/.config/autostart/x.desktop",
		"/home/u/.ssh/authorized_keys", "/home/u/.gitconfig", "/home/u/.local/bin/git",
	] {
		halted(tool("Edit", path, "write"))
		halted(bash([], {"writes": [path]}, {}, {}))
	}
}

test_recursive_deletes_of_root_home_and_ancestors if {
	every dir in ["/", "/home/u", "/home", "/usr", "/var"] {
		halted(bash([], {"deletes": [dir]}, {}, {}))
	}
	halted(bash([], {}, {"deletes": ["/*"]}, {}))
	not halted(bash([], {"deletes": ["/home/u/p/build", "/tmp/x"]}, {}, {}))
}

test_ordinary_work_is_allowed if {
	not halted(bash([], {"reads": ["/etc/os-release", "/usr/bin/python3"], "executes": ["/usr/bin/python3"], "writes": ["/home/u/p/out.txt", "/dev/null"]}, {}, {}))
	not halted(tool("Write", "/home/u/p/src/a.py", "write"))
	not halted(bash([cmd(["crontab", "-l"], [])], {}, {}, {}))
}

test_secret_system_reads if {
	halted(bash([], {"reads": ["/etc/shadow"]}, {}, {}))
	halted(bash([], {"reads": ["/proc/1/environ"]}, {}, {}))
	halted(tool("Read", "/etc/hosts", "read"))
}

test_commands if {
	halted(bash([cmd(["apt", "install", "x"], ["sudo"])], {}, {}, {}))
	halted(bash([cmd(["ls"], [])], {}, {}, {"facts": ["privileged"]}))
	halted(bash([cmd(["crontab", "job.txt"], [])], {}, {}, {}))
	halted(bash([cmd(["crontab", "-e"], [])], {}, {}, {}))
	halted(bash([cmd(["systemctl", "--user", "enable", "x"], [])], {}, {}, {}))
	not halted(bash([cmd(["systemctl", "status", "x"], [])], {}, {}, {}))
}

test_uncertain if {
	e := bash([], {}, {}, {"opaque": [{"kind": "deletes", "reason": "xargs operands", "command": 0}]})
	count(sp.ask) == 1 with input as e
	not halted(e)
}
