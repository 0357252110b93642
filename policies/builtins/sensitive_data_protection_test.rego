package cupcake.policies.builtins.sensitive_data_protection_test

import data.cupcake.policies.builtins.sensitive_data_protection as sd
import rego.v1

cfg := {"sensitive_data_protection": {"additional_patterns": ["config/prod/*.yml"], "home": "/home/u"}}

ev(tool, args, extra) := object.union({"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": tool, "tool_input": args, "builtin_config": cfg}, extra)

read(path) := ev("Read", {"filePath": path}, {"resolved_file_path": path})

denied(e) if count(sd.deny) > 0 with input as e

test_sensitive_files_denied if {
	every path in ["/p/.env", "/p/.env.local", "/p/prod.env", "/home/u/.ssh/id_rsa", "/home/u/.aws/credentials", "/p/certs/server.key",
		"/p/tls.pem", "/home/u/.netrc", "/p/secrets.yaml", "/p/config/credentials.json", "/p/app.sqlite3", "/home/u/.kube/config",
		"/p/config/prod/db.yml", "/p/api_token"] {
		denied(read(path))
	}
}

test_ordinary_files_allowed if {
	every path in ["/p/src/tokenizer.py", "/p/src/auth.ts", "/p/.env.example", "/p/README.md", "/home/u/.ssh/id_rsa.pub",
		"/p/docs/password-reset.md", "/p/config/dev/db.yml", "/p/keyboard.c"] {
		not denied(read(path))
	}
}

test_masked_reason if {
	some d in sd.deny with input as read("/p/.env")
	d.reason == "Blocked access to potentially sensitive file (sensitive_data_protection: Read on [REDACTED-ENV-FILE])"
	some d2 in sd.deny with input as read("/p/tls.pem")
	d2.reason == "Blocked access to potentially sensitive file (sensitive_data_protection: Read on [SENSITIVE-FILE: *.pem])"
}

test_glob_and_grep_patterns if {
	denied(ev("Glob", {"pattern": "**/.env*"}, {}))
	denied(ev("Glob", {"pattern": "**/*secret*"}, {}))
	denied(ev("Grep", {"pattern": "x", "include": "*.pem"}, {}))
	not denied(ev("Glob", {"pattern": "**/*.ts"}, {}))
	not denied(ev("Grep", {"pattern": "password", "include": "*.py"}, {}))
}

test_bash if {
	every case in [["cat .env", ["/p/.env"]], ["cp ~/.aws/credentials /tmp/x", ["/home/u/.aws/credentials", "/tmp/x"]],
		["security find-generic-password -s x -w", []], ["aws configure get aws_secret_access_key", []],
		["gcloud auth print-access-token", []], ["python3 -c \"print(open('.env').read())\"", []], ["printenv", []]] {
		denied(ev("Bash", {"command": case[0]}, {"affected_parent_directories": case[1]}))
	}
	every case in [["ls -la", []], ["cat src/app.py", ["/p/src/app.py"]], ["grep -r TOKEN src", ["/p/src"]]] {
		not denied(ev("Bash", {"command": case[0]}, {"affected_parent_directories": case[1]}))
	}
}
