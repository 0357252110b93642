package cupcake.policies.builtins.protected_paths_test

import data.cupcake.policies.builtins.protected_paths as pp
import rego.v1

cfg := {"protected_paths": {
	"message": "read-only",
	"paths": ["/etc/", "secrets/", ".env", "/home/u/.ssh/", "config/*.prod.yml", "/proj/vendor", "*.lock"],
	"home": "/home/u",
}}

no_effects := {"reads": [], "writes": [], "deletes": [], "links": [], "executes": []}

tool(name, path, access) := {
	"hook_event_name": "PreToolUse", "cwd": "/proj", "tool_name": name, "tool_input": {},
	"tool_paths": [{"path": path, "original": path, "arg": "args.filePath", "access": access}], "builtin_config": cfg,
}

# A Bash event with hand-made analysis (the shape of input.shell, docs/input.md).
bash(effects, patterns, opaque) := {
	"hook_event_name": "PreToolUse", "cwd": "/proj", "tool_name": "Bash", "tool_input": {"command": "…"},
	"tool_paths": [], "builtin_config": cfg,
	"shell": {
		"version": 1, "source": "…", "cwd": "/proj", "parsed": true, "commands": [],
		"effects": object.union(no_effects, effects), "patterns": object.union(no_effects, patterns),
		"opaque": opaque, "git": [], "facts": [],
	},
}

ids(event) := {d.rule_id | some d in result} if result := pp.halt with input as event

test_file_tools_block_protected_files if {
	every path in [
		"/etc/hosts", "/proj/secrets/token.txt", "/proj/a/secrets", "/proj/.env", "/proj/sub/.env",
		"/home/u/.ssh/id_rsa", "/proj/config/db.prod.yml", "/proj/vendor/x.go", "/proj/Secrets/X", "/proj/poetry.lock",
	] {
		every access in ["write", "delete", "unknown"] {
			ids(tool("filesystem_write_file", path, access)) == {"BUILTIN-PROTECTED-PATHS"}
		}
	}
}

test_file_tools_allow_other_files_and_reads if {
	every path in [
		"/etc2/x", "/proj/src/app.py", "/proj/.envrc", "/proj/mysecrets/x", "/proj/config/db.dev.yml",
		"/proj/vendored/x", "/home/u/.sshx", "/proj/lock.py",
	] {
		ids(tool("Write", path, "write")) == set()
	}
	ids(tool("Read", "/proj/.env", "read")) == set()
}

test_every_tool_path_is_checked if {
	e := object.union(tool("filesystem_move_file", "/proj/a.txt", "delete"), {"tool_paths": [
		{"path": "/proj/a.txt", "original": "a.txt", "arg": "args.source", "access": "delete"},
		{"path": "/proj/secrets/k", "original": "secrets/k", "arg": "args.destination", "access": "write"},
	]})
	ids(e) == {"BUILTIN-PROTECTED-PATHS"}
}

test_bash_effects if {
	ids(bash({"writes": ["/proj/secrets/a"]}, {}, [])) == {"BUILTIN-PROTECTED-PATHS"}
	ids(bash({"links": ["/proj/x", "/proj/.env"]}, {}, [])) == {"BUILTIN-PROTECTED-PATHS"}
	ids(bash({"deletes": ["/proj/secrets"]}, {}, [])) == {"BUILTIN-PROTECTED-PATHS"}
	ids(bash({"reads": ["/proj/secrets/a", "/proj/.env"]}, {}, [])) == set()
	ids(bash({"writes": ["/proj/src/a.py"], "deletes": ["/proj/build"]}, {}, [])) == set()
}

test_recursive_delete_of_an_ancestor if {
	every dir in ["/proj", "/", "/home/u", "/home"] {
		"BUILTIN-PROTECTED-PATHS-PARENT" in ids(bash({"deletes": [dir]}, {}, []))
	}
	ids(bash({"deletes": ["/proj/src"]}, {}, [])) == set()
}

test_globs_overlap_properly if {
	ids(bash({}, {"deletes": ["/proj/sec*"]}, [])) == {"BUILTIN-PROTECTED-PATHS"}
	ids(bash({}, {"writes": ["/proj/config/*.yml"]}, [])) == {"BUILTIN-PROTECTED-PATHS"}
	# for f in src/*.py; sed -i …: a glob of .py files never reaches *.lock or secrets/
	ids(bash({"writes": ["/proj/src/a.py"]}, {"writes": ["/proj/src/*.py"]}, [])) == set()
	ids(bash({}, {"deletes": ["/proj/build/*"]}, [])) == set()
	ids(bash({}, {"writes": ["/proj/*.md"]}, [])) == set()
	# find . -name '*.log' -delete
	ids(bash({}, {"deletes": ["/proj/**/*.log"]}, [])) == set()
	ids(bash({}, {"deletes": ["/proj/**/*.lock"]}, [])) == {"BUILTIN-PROTECTED-PATHS"}
	ids(bash({}, {"deletes": ["/proj/**/secrets"]}, [])) == {"BUILTIN-PROTECTED-PATHS"}
}

test_uncertain_changes_ask if {
	e := bash({}, {}, [{"kind": "deletes", "reason": "operand $(ls) is computed at run time", "command": 0}])
	count(pp.halt) == 0 with input as e
	some d in pp.ask with input as e
	d.rule_id == "BUILTIN-PROTECTED-PATHS-UNCERTAIN"
	contains(d.reason, "$(ls)")
	count(pp.ask) == 0 with input as bash({}, {}, [{"kind": "reads", "reason": "x", "command": 0}])
}

test_on_uncertain_deny_and_allow if {
	opaque := [{"kind": "command", "reason": "inline python code", "command": 0}]
	deny_cfg := {"protected_paths": object.union(cfg.protected_paths, {"on_uncertain": "deny"})}
	count(pp.deny) == 1 with input as object.union(bash({}, {}, opaque), {"builtin_config": deny_cfg})
	allow_cfg := {"protected_paths": object.union(cfg.protected_paths, {"on_uncertain": "allow"})}
	count(pp.ask) == 0 with input as object.union(bash({}, {}, opaque), {"builtin_config": allow_cfg})
	count(pp.deny) == 0 with input as object.union(bash({}, {}, opaque), {"builtin_config": allow_cfg})
}

test_missing_analysis_is_uncertain if {
	e := object.remove(bash({}, {}, []), ["shell"])
	count(pp.ask) == 1 with input as e
}

test_no_paths_configured_is_inert if {
	e := object.union(bash({"writes": ["/etc/x"]}, {}, [{"kind": "writes", "reason": "x", "command": 0}]), {"builtin_config": {"protected_paths": {"paths": []}}})
	count(pp.halt) == 0 with input as e
	count(pp.ask) == 0 with input as e
}

test_reason_names_the_match if {
	some d in pp.halt with input as tool("Edit", "/proj/secrets/a", "write")
	d.reason == "read-only (protected_paths: Edit writes /proj/secrets/a, which matches protected path 'secrets/')"
}

test_inline_code_without_file_capabilities_is_not_uncertain if {
	inline := [{"kind": "deletes", "reason": "inline interpreter program", "command": 0}]
	harmless := object.union(bash({}, {}, inline), {"shell": {"commands": [{"name": "python3", "argv": ["python3", "-c", "print(1+2)"]}]}})
	count(pp.ask) == 0 with input as harmless
	risky := object.union(bash({}, {}, inline), {"shell": {"commands": [{"name": "python3", "argv": ["python3", "-c", "__import__('shutil').rmtree('sec'+'rets')"]}]}})
	count(pp.ask) == 1 with input as risky
	hidden := object.union(bash({}, {}, inline), {"shell": {"commands": [{"name": "python3", "argv": ["python3", "-c", null]}]}})
	count(pp.ask) == 1 with input as hidden
}

cmd(argv) := {"name": argv[0], "argv": argv, "cwd": "/proj"}

test_unknown_programs_naming_a_protected_path_are_uncertain if {
	black := object.union(bash({"reads": ["/proj/config/db.prod.yml"]}, {}, []), {"shell": {"commands": [cmd(["black", "config/db.prod.yml"])]}})
	count(pp.ask) == 1 with input as black
	out := object.union(bash({}, {}, []), {"shell": {"commands": [cmd(["openssl", "enc", "--out=secrets/x"])]}})
	count(pp.ask) == 1 with input as out
	cat := object.union(bash({"reads": ["/proj/config/db.prod.yml"]}, {}, []), {"shell": {"commands": [cmd(["cat", "config/db.prod.yml"])]}})
	count(pp.ask) == 0 with input as cat
	echo := object.union(bash({}, {}, []), {"shell": {"commands": [cmd(["echo", "secrets/x"])]}})
	count(pp.ask) == 0 with input as echo
	black_src := object.union(bash({"reads": ["/proj/src"]}, {}, []), {"shell": {"commands": [cmd(["black", "src"])]}})
	count(pp.ask) == 0 with input as black_src
}
