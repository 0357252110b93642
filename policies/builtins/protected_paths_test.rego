package cupcake.policies.builtins.protected_paths_test

import data.cupcake.policies.builtins.protected_paths as pp
import rego.v1

cfg := {"protected_paths": {
	"message": "read-only",
	"paths": ["/etc/", "secrets/", ".env", "/home/u/.ssh/", "config/*.prod.yml", "/proj/vendor"],
	"home": "/home/u",
}}

file_event(tool, path) := {
	"hook_event_name": "PreToolUse", "cwd": "/proj", "tool_name": tool,
	"tool_input": {"filePath": path}, "resolved_file_path": path, "builtin_config": cfg,
}

bash(cmd, dirs) := {
	"hook_event_name": "PreToolUse", "cwd": "/proj", "tool_name": "Bash",
	"tool_input": {"command": cmd}, "affected_parent_directories": dirs, "builtin_config": cfg,
}

ids(event) := {d.rule_id | some d in result} if result := pp.halt with input as event

reasons(event) := {d.reason | some d in result} if result := pp.halt with input as event

test_file_tools_block_protected_files if {
	every path in ["/etc/hosts", "/proj/secrets/token.txt", "/proj/a/secrets", "/proj/.env", "/proj/sub/.env",
		"/home/u/.ssh/id_rsa", "/proj/config/db.prod.yml", "/proj/vendor/x.go", "/proj/Secrets/X"] {
		every tool in ["Edit", "Write", "notion_update_page"] {
			ids(file_event(tool, path)) == {"BUILTIN-PROTECTED-PATHS"}
		}
	}
}

test_file_tools_allow_other_files if {
	every path in ["/etc2/x", "/proj/src/app.py", "/proj/.envrc", "/proj/mysecrets/x", "/proj/config/db.dev.yml",
		"/proj/vendored/x", "/home/u/.sshx"] {
		ids(file_event("Write", path)) == set()
	}
}

test_reads_are_allowed if {
	ids(file_event("Read", "/proj/.env")) == set()
	ids(file_event("Grep", "/proj/secrets")) == set()
}

test_reason_names_rule_and_match if {
	reasons(file_event("Edit", "/proj/secrets/a")) == {"read-only (protected_paths: /proj/secrets/a matches protected path 'secrets/')"}
}

test_apply_patch_targets if {
	event := {
		"hook_event_name": "PreToolUse", "cwd": "/proj", "tool_name": "ApplyPatch", "tool_input": {"patchText": "…"},
		"affected_files": ["/proj/src/a.py", "/proj/secrets/b"], "builtin_config": cfg,
	}
	ids(event) == {"BUILTIN-PROTECTED-PATHS"}
	ids(object.union(event, {"affected_files": ["/proj/src/a.py"]})) == set()
}

test_bash_read_only_commands_pass if {
	every cmd in [
		"cat secrets/token.txt", "grep -r key secrets/", "ls -la /etc/", "head -5 .env | wc -l",
		"find secrets -name '*.txt'", "sed -n 1,5p .env", "cat .env 2>/dev/null", "diff secrets/a secrets/b 2>&1",
	] {
		ids(bash(cmd, ["/proj/secrets"])) == set()
	}
}

test_bash_writes_block if {
	every cmd in [
		"rm -rf secrets/", "echo x > secrets/a", "cat a > .env", "cp x /etc/hosts", "sed -i s/a/b/ .env",
		"rm -rf secrets/ && ls", "cat .env | tee secrets/b", "ls; mv secrets /tmp", "find secrets -delete",
		"sort -o .env x", "cat $(rm secrets/a)", "echo x >> ~/.ssh/authorized_keys", "rm $HOME/.ssh/id_rsa",
		"rm config/app.prod.yml",
	] {
		count(ids(bash(cmd, []))) > 0
	}
}

test_bash_write_through_resolved_operand if {
	# `rm link/x` where link -> secrets: only the engine's resolved operand shows it.
	ids(bash("rm link/x", ["/proj/secrets/x"])) == {"BUILTIN-PROTECTED-PATHS"}
}

test_bash_glob_reaching_protected_name if {
	ids(bash("rm -rf secre*", ["/proj/secre"])) == {"BUILTIN-PROTECTED-PATHS"}
	ids(bash("rm -rf .en?", ["/proj/.en"])) == {"BUILTIN-PROTECTED-PATHS"}
	ids(bash("rm -rf build*", ["/proj/build"])) == set()
}

test_bash_unrelated_commands_pass if {
	every case in [
		["rm -rf build/", ["/proj/build"]], ["echo secretsauce > notes.txt", ["/proj/notes.txt"]],
		["mkdir -p src/x", ["/proj/src/x"]], ["git add .", ["/proj"]], ["cd /proj && make", ["/proj"]],
		["mv /tmp/x .", ["/tmp/x", "/proj"]], ["cp /tmp/a .", ["/tmp/a", "/proj"]], ["rm -rf build*", ["/proj/build"]],
		["cd /proj && rm -rf dist", ["/proj", "/proj/dist"]],
	] {
		ids(bash(case[0], case[1])) == set()
	}
}

test_parent_directory_operations if {
	every cmd in ["rm -rf /proj", "chmod -R 000 .", "rm -rf ../proj", "mv . /tmp/x", "cd sub && rm -rf ..", "find . -delete"] {
		"BUILTIN-PROTECTED-PATHS-PARENT" in ids(bash(cmd, []))
	}

	# globs: `*` reaches secrets/ (and /etc via /*), but never a dot name such as ~/.ssh
	every cmd in ["rm -rf ./*", "rm -rf /*", "cd sub && rm -rf ../*", "rm -rf /home/*"] {
		count(ids(bash(cmd, []))) > 0
	}
	ids(bash("rm -rf src/*", ["/proj/src"])) == set()
	ids(bash("rm -rf /home/u/*", [])) == set()
}

test_parent_reason if {
	some r in reasons(bash("rm -rf .", []))
	contains(r, "'secrets/' would be affected by the operation on /proj")
}

test_parent_via_resolved_symlink if {
	# `rm -rf up/*` where up -> /etc's parent: resolved operand is /
	"BUILTIN-PROTECTED-PATHS-PARENT" in ids(bash("rm -rf up", ["/"]))
}

test_inline_scripts if {
	ids(bash("python3 -c \"open('secrets/a','w').write('x')\"", [])) == {"BUILTIN-PROTECTED-PATHS-SCRIPT"}
	ids(bash("node -e \"require('fs').unlinkSync('.env')\"", [])) == {"BUILTIN-PROTECTED-PATHS-SCRIPT"}
	ids(bash("bash -c 'rm -rf /etc/x'", [])) == {"BUILTIN-PROTECTED-PATHS-SCRIPT"}
	ids(bash("python3 -c 'print(1)'", [])) == set()
}

test_executed_script_content if {
	event := object.union(bash("./clean.sh", ["/proj/clean.sh"]), {"executed_scripts": [{"path": "/proj/clean.sh", "content": "#!/bin/sh\nrm -rf secrets/\n"}]})
	ids(event) == {"BUILTIN-PROTECTED-PATHS-SCRIPT"}
	harmless := object.union(bash("./build.sh", ["/proj/build.sh"]), {"executed_script_path": "/proj/build.sh", "executed_script_content": "make all\n"})
	ids(harmless) == set()
}

test_links if {
	ids(bash("ln -s secrets/token.txt t", [])) == {"BUILTIN-PROTECTED-PATHS"}
	ids(bash("ln /etc/passwd p", [])) == {"BUILTIN-PROTECTED-PATHS"}
	some r in reasons(bash("ln -s .env e", []))
	contains(r, "creating a link involving protected path '.env'")
	ids(bash("ln -s src/a b", [])) == set()
}

test_workdir_is_the_base if {
	event := object.union(bash("rm -rf ..", []), {"tool_input": {"command": "rm -rf ..", "workdir": "sub"}})
	"BUILTIN-PROTECTED-PATHS-PARENT" in ids(event)
	glob := object.union(bash("rm -rf ../*", []), {"tool_input": {"command": "rm -rf ../*", "workdir": "sub"}})
	count(ids(glob)) > 0
	same_dir := object.union(bash("rm -rf ../*", []), {"tool_input": {"command": "rm -rf ../*", "workdir": "/tmp/a"}})
	ids(same_dir) == set()
}

test_inert_without_paths if {
	ids(object.union(file_event("Edit", "/etc/hosts"), {"builtin_config": {"protected_paths": {"paths": []}}})) == set()
	ids(object.remove(bash("rm -rf /etc", []), ["builtin_config"])) == set()
}

test_only_pre_tool_use if {
	ids(object.union(file_event("Edit", "/etc/hosts"), {"hook_event_name": "PostToolUse"})) == set()
}
