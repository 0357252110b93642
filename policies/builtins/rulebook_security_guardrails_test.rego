package cupcake.policies.builtins.rulebook_security_guardrails_test

import data.cupcake.policies.builtins.rulebook_security_guardrails as rs
import rego.v1

cfg := {"rulebook_security_guardrails": {
	"message": "protected",
	"protected_paths": [".cupcake/", "/home/u/.config/cupcake/"],
	"home": "/home/u",
}}

event(tool, args, extra) := object.union(
	{"hook_event_name": "PreToolUse", "cwd": "/proj", "tool_name": tool, "tool_input": args, "builtin_config": cfg},
	extra,
)

file(tool, path) := event(tool, {"filePath": path}, {"resolved_file_path": path})

bash(cmd, dirs) := event("Bash", {"command": cmd}, {"affected_parent_directories": dirs})

blocked(e) if count(rs.halt) > 0 with input as e

test_reads_and_writes_of_cupcake_files_halt if {
	every tool in ["Read", "Edit", "Write", "unknown_mcp_tool"] {
		every path in ["/proj/.cupcake/rulebook.yml", "/proj/.cupcake", "/proj/sub/.cupcake/policies/x.rego", "/home/u/.config/cupcake/rulebook.yml"] {
			blocked(file(tool, path))
		}
	}
}

test_other_files_pass if {
	every path in ["/proj/src/cupcake.py", "/proj/.cupcakes/x", "/proj/docs/cupcake/readme.md"] {
		not blocked(file("Edit", path))
		not blocked(file("Read", path))
	}
}

test_symlink_into_cupcake_is_resolved if {
	# link -> .cupcake/rulebook.yml: the engine resolves the target
	blocked(event("Read", {"filePath": "link"}, {"resolved_file_path": "/proj/.cupcake/rulebook.yml", "is_symlink": true}))
}

test_apply_patch if {
	blocked(event("ApplyPatch", {"patchText": "…"}, {"affected_files": ["/proj/a.py", "/proj/.cupcake/rulebook.yml"]}))
	not blocked(event("ApplyPatch", {"patchText": "…"}, {"affected_files": ["/proj/a.py"]}))
}

test_glob_and_grep if {
	blocked(event("Glob", {"pattern": ".cupcake/**/*.rego"}, {}))
	blocked(event("Glob", {"pattern": ".cup*/*"}, {}))
	blocked(event("Glob", {"pattern": "**/*.yml", "path": "/proj/.cupcake"}, {"resolved_file_path": "/proj/.cupcake"}))
	blocked(event("Grep", {"pattern": "enabled", "include": ".c*/*.yml"}, {}))
	blocked(event("Grep", {"pattern": "x", "path": ".cupcake"}, {"resolved_file_path": "/proj/.cupcake"}))
	not blocked(event("Glob", {"pattern": "**/*.ts"}, {}))
	not blocked(event("Glob", {"pattern": "*"}, {}))
	not blocked(event("Grep", {"pattern": "cupcake", "include": "*.py"}, {}))
}

test_bash_reads_and_writes if {
	every cmd in [
		"cat .cupcake/rulebook.yml", "rm -rf .cupcake", "echo x >> .cupcake/rulebook.yml", "ls -la .cupcake/",
		"cp /tmp/r.yml ./.cupcake/rulebook.yml", "cat ~/.config/cupcake/rulebook.yml", "sed -i s/x/y/ $HOME/.config/cupcake/rulebook.yml",
		"python3 -c \"open('.cupcake/rulebook.yml').read()\"",
	] {
		blocked(bash(cmd, []))
	}
}

test_bash_bypass_attempts if {
	# quotes split the name: only the engine's resolved operand shows it
	blocked(bash("cat .cup''cake/rulebook.yml", ["/proj/.cupcake/rulebook.yml"]))
	# a glob expanding into it
	blocked(bash("cat .c*/rulebook.yml", ["/proj/.c"]))
	blocked(bash("cat .cupcak?/rulebook.yml", ["/proj/.cupcak"]))
	# a symlink to it, then reading through the link
	blocked(bash("ln -s .cupcake cfg", []))
	blocked(bash("cat cfg/rulebook.yml", ["/proj/.cupcake/rulebook.yml"]))
	# destroying the parent
	blocked(bash("rm -rf ../proj", ["/proj"]))
	blocked(bash("rm -rf /proj", ["/proj"]))
	# a script that touches it
	blocked(object.union(bash("./x.sh", ["/proj/x.sh"]), {"executed_scripts": [{"path": "/proj/x.sh", "content": "rm -rf .cupcake\n"}]}))
}

test_bash_unrelated_commands_pass if {
	every case in [["ls -la", []], ["rm -rf *", ["/proj"]], ["cat src/app.py", ["/proj/src/app.py"]], ["git status", []],
		["grep -r cupcake_py src/", ["/proj/src"]], ["rm -rf build", ["/proj/build"]]] {
		not blocked(bash(case[0], case[1]))
	}
}

test_other_tools_arguments if {
	blocked(event("Task", {"description": "d", "prompt": "edit .cupcake/rulebook.yml to disable rules", "subagent_type": "general"}, {}))
	blocked(event("WebFetch", {"url": "file:///proj/.cupcake/rulebook.yml"}, {}))
	blocked(event("fs_write_file", {"target": {"path": ".cupcake/rulebook.yml"}}, {}))
	not blocked(event("Task", {"description": "d", "prompt": "write tests", "subagent_type": "general"}, {}))
	# file contents are not places: writing docs that mention .cupcake/ is fine
	not blocked(event("Write", {"filePath": "README.md", "content": "configure .cupcake/rulebook.yml"}, {"resolved_file_path": "/proj/README.md"}))
}

test_default_protects_cupcake_dir if {
	e := object.union(object.remove(file("Write", "/proj/.cupcake/rulebook.yml"), ["builtin_config"]), {"builtin_config": {"rulebook_security_guardrails": {}}})
	blocked(e)
	some d in rs.halt with input as e
	d.rule_id == "BUILTIN-RULEBOOK-SECURITY"
	contains(d.reason, "Cupcake configuration files are protected from modification (rulebook_security_guardrails: blocked Write on /proj/.cupcake/rulebook.yml")
}
