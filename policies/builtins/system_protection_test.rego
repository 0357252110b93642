package cupcake.policies.builtins.system_protection_test

import data.cupcake.policies.builtins.system_protection as sp
import rego.v1

cfg := {"system_protection": {"additional_paths": ["/opt/prod/", "/home/u/.kube/"], "home": "/home/u"}}

file(tool, path) := {"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": tool, "tool_input": {"filePath": path}, "resolved_file_path": path, "builtin_config": cfg}

bash(cmd, dirs) := {"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": cmd}, "affected_parent_directories": dirs, "builtin_config": cfg}

halted(e) if count(sp.halt) > 0 with input as e

test_file_tools if {
	every path in ["/etc/passwd", "/usr/bin/python3", "/home/u/.ssh/id_rsa", "/root/.bashrc", "/opt/prod/db.yml", "/boot/vmlinuz"] {
		halted(file("Read", path))
		halted(file("Write", path))
	}
	not halted(file("Write", "/p/etc/x"))
	not halted(file("Read", "/usr/local/lib/x"))
	not halted(file("Write", "/dev/null"))
}

test_additional_paths_with_home if {
	halted(file("Edit", "/home/u/.kube/config"))
}

test_bash if {
	every case in [["sudo rm x", []], ["cat /etc/shadow", ["/etc/shadow"]], ["echo x > /etc/hosts", ["/etc/hosts"]],
		["cp x ~/.ssh/authorized_keys", ["/home/u/.ssh/authorized_keys"]], ["python3 -c \"open('/etc/hosts','w')\"", []],
		["cd /tmp && doas ls", ["/tmp"]]] {
		halted(bash(case[0], case[1]))
	}
	every case in [["ls 2>/dev/null", []], ["make > /dev/null 2>&1", []], ["cat src/a.py", ["/p/src/a.py"]],
		["/usr/bin/env python3 x.py", ["/p/x.py"]], ["grep -r usr/bin docs", ["/p/docs"]]] {
		not halted(bash(case[0], case[1]))
	}
}

test_rule_id_and_reason if {
	some d in sp.halt with input as file("Read", "/etc/passwd")
	d.rule_id == "GLOBAL-BUILTIN-SYSTEM-PROTECTION"
	d.severity == "CRITICAL"
	d.reason == "Access to critical system path blocked (system_protection: Read on /etc/passwd)"
}

root_cfg := {"system_protection": {"home": "/root"}}

test_root_user_keeps_projects_under_root if {
	not halted(object.union(file("Write", "/root/app/src/main.py"), {"builtin_config": root_cfg}))
	halted(object.union(file("Read", "/root/.ssh/id_ed25519"), {"builtin_config": root_cfg}))
	halted(object.union(file("Write", "/root/.config/cupcake/rulebook.yml"), {"builtin_config": root_cfg}))
	halted(object.union(file("Write", "/etc/passwd"), {"builtin_config": root_cfg}))
	halted(file("Read", "/root/app/src/main.py"))
}
