package cupcake.policies.builtins.cupcake_exec_protection_test

import data.cupcake.policies.builtins.cupcake_exec_protection as ce
import rego.v1

bash(cmd) := {"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": cmd}, "builtin_config": {"cupcake_exec_protection": {"allowed_commands": ["cupcake --version", "cupcake check"]}}}

halted(e) if count(ce.halt) > 0 with input as e

test_invocations_halt if {
	every cmd in [
		"cupcake eval --harness opencode", "./cupcake eval", "/usr/local/bin/cupcake init", "ls; cupcake eval", "ls && cupcake eval",
		"echo {} | cupcake eval", "x=$(cupcake eval)", "`cupcake eval`", "sudo cupcake", "env A=1 cupcake eval", "bash -c 'cupcake eval'",
		"eval cupcake eval", "python -m cupcake_py eval", "python3 -I -m cupcake_py", ".venv/bin/cupcake eval", "CUPCAKE=1 cupcake",
		"pip install cupcake-py", "cargo install cupcake", "uv run cupcake eval", "alias cc=cupcake", "CUPCAKE eval",
		"cupcake check && cupcake eval", "cupcake-py eval",
	] {
		halted(bash(cmd))
	}
}

test_other_commands_and_allowed if {
	every cmd in ["ls cupcake/", "cd cupcake", "grep -r cupcake src", "cat cupcake.md", "cupcake --version", "cupcake check policies/",
		"git clone https://x/cupcake.git", "echo cupcakes", "python -m pytest tests/cupcake_py"] {
		not halted(bash(cmd))
	}
}

test_reason if {
	some d in ce.halt with input as bash("cupcake eval")
	d == {"rule_id": "GLOBAL-BUILTIN-CUPCAKE-EXEC", "severity": "CRITICAL", "reason": "Direct execution of Cupcake binary is not permitted (cupcake_exec_protection: the command runs or installs cupcake)"}
}
