package cupcake.policies.builtins.cupcake_exec_protection_test

import data.cupcake.policies.builtins.cupcake_exec_protection as ce
import rego.v1

cfg := {"cupcake_exec_protection": {"allowed_commands": ["cupcake --version", "cupcake check"]}}

bash(source, argvs, executes) := {
	"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": source},
	"tool_paths": [], "builtin_config": cfg,
	"shell": {
		"version": 1, "source": source, "cwd": "/p", "parsed": true,
		"commands": [{"name": a[0], "argv": a, "wrappers": [], "cwd": "/p", "redirects": [], "origin": "command", "depth": 0, "opaque": []} | some a in argvs],
		"effects": {"reads": [], "writes": [], "deletes": [], "links": [], "executes": executes},
		"patterns": {}, "opaque": [], "git": [], "facts": [],
	},
}

halted(e) if count(ce.halt) > 0 with input as e

test_invocations_halt if {
	every argv in [
		["cupcake", "eval"], ["/usr/local/bin/cupcake", "init"], ["cupcake-py", "eval"], ["python", "-m", "cupcake_py", "eval"],
		["python3", "-I", "-m", "cupcake_py.cli"], ["pip", "install", "cupcake-py"], ["cargo", "install", "cupcake"],
		["uvx", "cupcake"], ["alias", "cc=cupcake"], ["npx", "cupcake@latest"],
	] {
		halted(bash("…", [argv], []))
	}
	halted(bash("…", [["sh", "x"]], ["/home/u/.local/bin/cupcake"]))
}

test_other_commands_and_allowed if {
	every argv in [["ls", "cupcake/"], ["grep", "-r", "cupcake", "src"], ["cat", "cupcake.md"], ["git", "clone", "https://x/cupcake.git"], ["python", "-m", "pytest", "tests/cupcake_py"]] {
		not halted(bash("…", [argv], []))
	}
	not halted(bash("cupcake --version", [["cupcake", "--version"]], []))
	not halted(bash("cupcake check policies/", [["cupcake", "check", "policies/"]], []))
	halted(bash("cupcake check && cupcake eval", [["cupcake", "check"], ["cupcake", "eval"]], []))
}

test_opaque_command_name_asks if {
	e := object.union(bash("$(which cupcake) eval", [], []), {"shell": {"commands": [{"name": null, "argv": [null, "eval"], "wrappers": [], "opaque": ["command word $(which cupcake)"]}]}})
	count(ce.ask) == 1 with input as e
	not halted(e)
}

test_reason if {
	some d in ce.halt with input as bash("cupcake eval", [["cupcake", "eval"]], [])
	d == {"rule_id": "GLOBAL-BUILTIN-CUPCAKE-EXEC", "severity": "CRITICAL", "reason": "Direct execution of Cupcake binary is not permitted (cupcake_exec_protection: the command runs `cupcake`)"}
}
