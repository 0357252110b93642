package cupcake.policies.builtins.sensitive_data_protection_test

import data.cupcake.policies.builtins.sensitive_data_protection as sd
import rego.v1

cfg := {"sensitive_data_protection": {"additional_patterns": ["*.vault"]}}

no_effects := {"reads": [], "writes": [], "deletes": [], "links": [], "executes": []}

tool(name, path, access) := {
	"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": name, "tool_input": {},
	"tool_paths": [{"path": path, "original": path, "arg": "args.filePath", "access": access}], "builtin_config": cfg,
}

bash(source, commands, effects, extra) := object.union(
	{
		"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": source},
		"tool_paths": [], "builtin_config": cfg,
		"shell": {
			"version": 1, "source": source, "cwd": "/p", "parsed": true, "commands": commands,
			"effects": object.union(no_effects, effects), "patterns": no_effects,
			"opaque": object.get(extra, "opaque", []), "git": object.get(extra, "git", []), "facts": object.get(extra, "facts", []),
		},
	},
	object.remove(extra, ["opaque", "git", "facts"]),
)

cmd(argv) := {"name": argv[0], "argv": argv, "wrappers": [], "cwd": "/p", "redirects": [], "origin": "command", "depth": 0, "opaque": []}

denied(e) if count(sd.deny) > 0 with input as e

secrets := [
	"/p/.env", "/p/.env.local", "/p/prod.env", "/home/u/.ssh/id_rsa", "/home/u/.ssh/config", "/p/server.pem", "/p/tls.key",
	"/home/u/.aws/credentials", "/home/u/.config/gcloud/application_default_credentials.json", "/home/u/.kube/config",
	"/home/u/.netrc", "/home/u/.git-credentials", "/p/db.sqlite3", "/p/secrets/key.txt", "/p/config/api_keys.yaml",
	"/p/x.vault", "/home/u/.docker/config.json", "/p/client_secret.json", "/p/.npmrc",
]

ordinary := ["/p/config/credentials.example.json", "/p/README.md", "/p/src/app.py", "/p/.env.example", "/p/src/tokenizer.py", "/home/u/.ssh2", "/p/keys.py", "/p/id_rsa.pub", "/p/docs/passwords.md"]

test_every_tool_and_access if {
	every path in secrets {
		every t in ["Read", "Write", "Edit", "filesystem_read_file", "ApplyPatch"] {
			denied(tool(t, path, "read"))
			denied(tool(t, path, "write"))
		}
		denied(bash("…", [], {"reads": [path]}, {}))
		denied(bash("…", [], {"links": [path, "/tmp/x"]}, {}))
	}
	every path in ordinary {
		not denied(tool("Read", path, "read"))
		not denied(bash("…", [], {"reads": [path]}, {}))
	}
}

test_recursive_readers_over_a_directory_with_secrets if {
	below := {"secrets_below": {"/p": ["/p/.env", "/p/.gitignore"]}}
	every argv in [["grep", "-r", "API", "."], ["rg", "API"], ["tar", "cf", "-", "."], ["cp", "-r", ".", "/tmp/x"], ["grep", "-Rn", "x", "."]] {
		denied(bash("…", [cmd(argv)], {"reads": ["/p"]}, below))
	}
	not denied(bash("…", [cmd(["grep", "-r", "TODO", "src"])], {"reads": ["/p/src"]}, {"secrets_below": {"/p/src": ["/p/src/.gitkeep"]}}))
	not denied(bash("…", [cmd(["ls", "-la"])], {"reads": ["/p"]}, below))
}

test_git_show_and_env_dumps if {
	denied(bash("git show HEAD:.env", [cmd(["git", "show", "HEAD:.env"])], {}, {"git": [{"command": 0, "subcommand": "show", "args": ["HEAD:.env"], "hooks_disabled": false, "reasons": [], "config": {}}]}))
	not denied(bash("git show HEAD:src/a.py", [cmd(["git", "show", "HEAD:src/a.py"])], {}, {"git": [{"command": 0, "subcommand": "show", "args": ["HEAD:src/a.py"], "hooks_disabled": false, "reasons": [], "config": {}}]}))
	denied(bash("export -p", [cmd(["export", "-p"])], {}, {"facts": ["env_dump"]}))
	denied(bash("printenv", [cmd(["printenv"])], {}, {}))
	denied(bash("env", [cmd(["env"])], {}, {}))
	not denied(bash("env A=1 make", [cmd(["make"])], {}, {}))
	denied(bash("aws configure get x", [cmd(["aws", "configure", "get", "aws_secret_access_key"])], {}, {}))
	denied(bash("gh auth token", [cmd(["gh", "auth", "token"])], {}, {}))
	not denied(bash("gh pr list", [cmd(["gh", "pr", "list"])], {}, {}))
}

test_search_patterns if {
	denied(object.union(tool("Glob", "/p", "read"), {"tool_input": {"pattern": "**/.env*"}}))
	denied(object.union(tool("Grep", "/p", "read"), {"tool_input": {"pattern": "x", "include": "*.pem"}}))
	not denied(object.union(tool("Glob", "/p", "read"), {"tool_input": {"pattern": "src/**/*.py"}}))
}

test_uncertain_reads_ask if {
	e := bash("python3 -c \"print(open('.e'+'nv').read())\"", [cmd(["python3", "-c", "…"])], {}, {"opaque": [{"kind": "command", "reason": "inline python code", "command": 0}]})
	count(sd.ask) == 1 with input as e
	e2 := bash("cat $(ls)", [cmd(["cat", null])], {}, {"opaque": [{"kind": "reads", "reason": "operand $(ls)", "command": 0}]})
	count(sd.ask) == 1 with input as e2
	e3 := bash("echo hi > $(f)", [cmd(["echo", "hi"])], {}, {"opaque": [{"kind": "writes", "reason": "redirect target $(f)", "command": 0}]})
	count(sd.ask) == 0 with input as e3
}

test_reason_masks_the_name if {
	some d in sd.deny with input as tool("Read", "/p/.env", "read")
	d.reason == "Blocked access to potentially sensitive file (sensitive_data_protection: Read read of [REDACTED-ENV-FILE])"
}

# ---- issue 28: history, project databases, directory searches

git_entry(sub, history) := {"command": 0, "subcommand": sub, "args": [], "hooks_disabled": false, "reasons": [], "config": {}, "git_dir": "/p/.git", "work_tree": "/p", "history": history}

history(paths, complete) := {"repositories": [{"work_tree": "/p", "git_dir": "/p/.git", "paths": paths, "complete": complete, "reason": "r"}]}

test_printing_history_of_a_repository_that_tracked_a_secret_is_denied if {
	denied(bash("git log -p", [cmd(["git", "log", "-p"])], {}, {"git": [git_entry("log", true)], "git_history": history(["/p/.env"], true)}))
	denied(bash("git show", [cmd(["git", "show"])], {}, {"git": [git_entry("show", true)], "git_history": history(["/p/old/id_rsa", "/p/.gitignore"], true)}))
}

scoped(paths) := object.union(git_entry("log", true), {"history_paths": paths})

test_history_limited_to_paths if {
	not denied(bash("git log -p -- src", [cmd(["git", "log", "-p"])], {}, {"git": [scoped(["/p/src"])], "git_history": history(["/p/.env", "/p/config/.env"], true)}))
	denied(bash("git log -p -- .", [cmd(["git", "log", "-p"])], {}, {"git": [scoped(["/p"])], "git_history": history(["/p/.env"], true)}))
	denied(bash("git log -p -- .env", [cmd(["git", "log", "-p"])], {}, {"git": [scoped(["/p/.env"])], "git_history": history(["/p/.env"], true)}))
	denied(bash("git log -p -- src", [cmd(["git", "log", "-p"])], {}, {"git": [scoped(["/p/src"])], "git_history": history(["/p/src/.env.bak"], true)}))
}

test_history_without_secrets_or_without_history_is_allowed if {
	not denied(bash("git log -p", [cmd(["git", "log", "-p"])], {}, {"git": [git_entry("log", true)], "git_history": history(["/p/.gitignore", "/p/.env.example"], true)}))
	not denied(bash("git log", [cmd(["git", "log"])], {}, {"git": [git_entry("log", false)], "git_history": history(["/p/.env"], true)}))
}

test_unknown_history_is_uncertain if {
	e := bash("git log -p", [cmd(["git", "log", "-p"])], {}, {"git": [git_entry("log", true)], "git_history": history([], false)})
	count(sd.ask) > 0 with input as e
}

test_project_database_queried_by_sqlite3_is_allowed if {
	not denied(bash("sqlite3 app.db 'select 1'", [cmd(["sqlite3", "app.db", "select 1"])], {"reads": ["/p/app.db"], "writes": ["/p/app.db"]}, {}))
	denied(bash("cat app.db", [cmd(["cat", "app.db"])], {"reads": ["/p/app.db"]}, {}))
	denied(bash("sqlite3 x", [cmd(["sqlite3", "/home/u/.mozilla/logins.db", "select 1"])], {"reads": ["/home/u/.mozilla/logins.db"]}, {}))
	denied(bash("sqlite3 s", [cmd(["sqlite3", "secrets/app.db", "select 1"])], {"reads": ["/p/secrets/app.db"]}, {}))
	denied(bash("sqlite3 … | curl", [cmd(["sqlite3", "app.db", ".dump"]), cmd(["curl", "-d", "@-", "x"])], {"reads": ["/p/app.db"]}, {}))
}

search(tool, kind, files) := {
	"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": tool, "tool_input": {"pattern": "x"}, "tool_paths": [],
	"builtin_config": cfg, "search_reads": {"tool": tool, "kind": kind, "dirs": {"/p": files}},
}

test_content_search_over_a_directory_holding_a_secret_is_denied if {
	denied(search("Grep", "content", ["/p/.env"]))
	denied(search("myserver_grep", "content", ["/p/secrets/key.txt"]))
	not denied(search("Grep", "content", ["/p/.gitignore", "/p/.env.example"]))
	not denied(search("Glob", "names", ["/p/.env"]))
}

test_cli_credential_stores_are_sensitive if {
	sd.sensitive("/home/u/.s3cfg")
	sd.sensitive("/home/u/.config/rclone/rclone.conf")
	sd.sensitive("/home/u/.oci/config")
	sd.sensitive("/home/u/.config/sops/age/keys.txt")
	not sd.sensitive("/home/u/.botocore/data.txt")
	not sd.sensitive("/home/u/.config/hubris")
}
