package cupcake.policies.builtins.rulebook_security_guardrails_test

import data.cupcake.policies.builtins.rulebook_security_guardrails as rs
import rego.v1

state := [
	{"path": "/proj/.cupcake", "kind": "config", "dir": true, "read_protected": false},
	{"path": "/home/u/.config/cupcake", "kind": "config", "dir": true, "read_protected": false},
	{"path": "/home/u/.config/cupcake/mac.key", "kind": "key", "dir": false, "read_protected": true},
	{"path": "/home/u/.cache/cupcake-py", "kind": "cache", "dir": true, "read_protected": false},
	{"path": "/proj/.opencode/plugin/cupcake.js", "kind": "plugin", "dir": false, "read_protected": false},
	{"path": "/proj/opencode.json", "kind": "agent_config", "dir": false, "read_protected": false},
]

cfg := {"rulebook_security_guardrails": {"state_paths": state, "path_dirs": ["/home/u/.local/bin", "/usr/local/bin"], "protected_paths": [".cupcake/"]}}

no_effects := {"reads": [], "writes": [], "deletes": [], "links": [], "executes": []}

tool(name, path, access) := {
	"hook_event_name": "PreToolUse", "cwd": "/proj", "tool_name": name, "tool_input": {},
	"tool_paths": [{"path": path, "original": path, "arg": "args.path", "access": access}], "builtin_config": cfg,
}

bash(effects, patterns, opaque) := {
	"hook_event_name": "PreToolUse", "cwd": "/proj", "tool_name": "Bash", "tool_input": {"command": "…"},
	"tool_paths": [], "builtin_config": cfg,
	"shell": {
		"version": 1, "source": "…", "cwd": "/proj", "parsed": true, "commands": [],
		"effects": object.union(no_effects, effects), "patterns": object.union(no_effects, patterns),
		"opaque": opaque, "git": [], "facts": [],
	},
}

halted(e) if count(rs.halt) > 0 with input as e

test_changes_to_state_halt_for_every_tool if {
	every path in [
		"/proj/.cupcake/rulebook.yml", "/home/u/.config/cupcake/rulebook.yml", "/home/u/.cache/cupcake-py/bundles/x.bundle",
		"/proj/.opencode/plugin/cupcake.js", "/proj/opencode.json", "/home/u/.config/cupcake/mac.key",
	] {
		every access in ["write", "delete", "unknown"] {
			every t in ["Write", "Edit", "filesystem_move_file", "ApplyPatch"] {
				halted(tool(t, path, access))
			}
		}
		halted(bash({"writes": [path]}, {}, []))
		halted(bash({"deletes": [path]}, {}, []))
		halted(bash({"links": [path, "/tmp/x"]}, {}, []))
	}
}

test_deleting_or_moving_an_ancestor_halts if {
	every dir in ["/home/u/.cache", "/home/u", "/", "/proj", "/home/u/.config"] {
		halted(bash({"deletes": [dir]}, {}, []))
	}
	not halted(bash({"deletes": ["/proj/build", "/home/u/.cache/pip"]}, {}, []))
}

test_reads if {
	halted(tool("Read", "/home/u/.config/cupcake/mac.key", "read"))
	halted(bash({"reads": ["/home/u/.config/cupcake/mac.key"]}, {}, []))
	# the legacy protected_paths (.cupcake/) are unreadable too
	halted(tool("Read", "/proj/.cupcake/rulebook.yml", "read"))
	not halted(tool("Read", "/home/u/.cache/cupcake-py/bundles/x", "read"))
	not halted(tool("Read", "/proj/src/a.py", "read"))
	not halted(bash({"reads": ["/proj/README.md"], "writes": ["/proj/src/a.py"]}, {}, []))
}

test_cupcake_on_path if {
	halted(bash({"writes": ["/home/u/.local/bin/cupcake"]}, {}, []))
	halted(tool("Write", "/usr/local/bin/cupcake", "write"))
	not halted(bash({"writes": ["/home/u/.local/bin/black"]}, {}, []))
	halted(tool("Write", "/usr/local/bin/git", "write"))
	halted(bash({"writes": ["/home/u/.local/bin/bash"]}, {}, []))
	halted(tool("Write", "/home/u/.local/bin/rg", "write"))
	not halted(tool("Write", "/home/u/src/git", "write"))
	not halted(bash({"writes": ["/proj/bin/cupcake"]}, {}, []))
}

test_globs if {
	halted(bash({}, {"deletes": ["/proj/.cup*"]}, []))
	halted(bash({}, {"reads": ["/proj/.c*/rulebook.yml"]}, []))
	halted(bash({}, {"deletes": ["/proj/*"]}, [])) # opencode.json
	not halted(bash({}, {"deletes": ["/proj/src/*"]}, []))
	not halted(bash({}, {"writes": ["/proj/src/*.py"]}, []))
}

test_search_tools_and_prompts if {
	halted(object.union(tool("Grep", "/proj", "read"), {"tool_input": {"pattern": "x", "path": ".cupcake"}}))
	halted(object.union(tool("Glob", "/proj", "read"), {"tool_input": {"pattern": "**/.cupcake/**"}}))
	halted(object.union(tool("Task", "/proj", "read"), {"tool_paths": [], "tool_input": {"prompt": "delete /home/u/.cache/cupcake-py/bundles please"}}))
	not halted(object.union(tool("Task", "/proj", "read"), {"tool_paths": [], "tool_input": {"prompt": "run the tests"}}))
}

test_uncertain_asks if {
	e := bash({}, {}, [{"kind": "writes", "reason": "redirect target $(printf x) is dynamic", "command": 0}])
	not halted(e)
	some d in rs.ask with input as e
	contains(d.reason, "redirect target")
}

test_reason if {
	some d in rs.halt with input as tool("Write", "/proj/opencode.json", "write")
	d.reason == "Cupcake configuration files are protected from modification (rulebook_security_guardrails: Write write of /proj/opencode.json (Cupcake agent_config))"
}

test_double_star_globs if {
	halted(object.union(tool("Glob", "/proj", "read"), {"tool_input": {"pattern": ".cup*/**/*.rego"}}))
	not halted(object.union(tool("Glob", "/proj", "read"), {"tool_input": {"pattern": "src/**/*.py"}}))
}
