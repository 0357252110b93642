package cupcake.policies.builtins.git_block_no_verify_test

import data.cupcake.policies.builtins.git_block_no_verify as gb
import rego.v1

cfg := {"git_block_no_verify": {"exceptions": ["git push --no-verify origin gh-pages"]}}

no_effects := {"reads": [], "writes": [], "deletes": [], "links": [], "executes": []}

g(sub, args, disabled) := {"command": 0, "subcommand": sub, "args": args, "hooks_disabled": disabled, "reasons": ["--no-verify"], "config": {}}

bash(source, gits, names, effects) := {
	"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": source},
	"tool_paths": [], "builtin_config": cfg,
	"shell": {
		"version": 1, "source": source, "cwd": "/p", "parsed": true,
		"commands": [{"name": n, "argv": [n], "wrappers": [], "cwd": "/p", "redirects": [], "origin": "command", "depth": 0, "opaque": []} | some n in names],
		"effects": object.union(no_effects, effects), "patterns": no_effects, "opaque": [], "git": gits, "facts": [],
	},
}

denied(e) if count(gb.deny) > 0 with input as e

test_hooks_disabled_is_denied if {
	denied(bash("git commit -n -m x", [g("commit", ["-n", "-m", "x"], true)], ["git"], {}))
	denied(bash("git -c core.hooksPath=/dev/null commit", [g("commit", [], true)], ["git"], {}))
	denied(bash("git config core.hooksPath /tmp/x", [g("config", ["core.hooksPath", "/tmp/x"], true)], ["git"], {}))
	some d in gb.deny with input as bash("git ci", [g("commit", [], true)], ["git"], {})
	contains(d.reason, "`git commit`: --no-verify")
}

test_ordinary_git_is_allowed if {
	not denied(bash("git commit -m 'fix -n'", [g("commit", ["-m", "fix -n"], false)], ["git"], {}))
	not denied(bash("git push origin main", [g("push", ["origin", "main"], false)], ["git"], {}))
	not denied(bash("git config user.name x", [g("config", ["user.name", "x"], false)], ["git"], {"writes": ["/p/.git/config"]}))
}

test_exceptions if {
	not denied(bash("git push --no-verify origin gh-pages", [g("push", ["--no-verify", "origin", "gh-pages"], true)], ["git"], {}))
}

test_hook_files if {
	denied(bash("rm .git/hooks/pre-commit", [], ["rm"], {"deletes": ["/p/.git/hooks/pre-commit"]}))
	denied(bash("chmod -x .git/hooks/pre-commit", [], ["chmod"], {"writes": ["/p/.git/hooks/pre-commit"]}))
	denied(bash("echo >> .git/config", [], ["echo"], {"writes": ["/p/.git/config"]}))
	denied({
		"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Write", "tool_input": {}, "builtin_config": cfg,
		"tool_paths": [{"path": "/p/.git/hooks/pre-commit", "original": ".git/hooks/pre-commit", "arg": "args.filePath", "access": "write"}],
	})
	not denied(bash("cat .git/hooks/pre-commit", [], ["cat"], {"reads": ["/p/.git/hooks/pre-commit"]}))
}

test_husky if {
	denied(bash("husky=0 git commit -m x", [g("commit", ["-m", "x"], false)], ["git"], {}))
}

test_opaque_git_asks if {
	count(gb.ask) == 1 with input as bash("git $(echo commit) -n", [g(null, [null], false)], ["git"], {})
	count(gb.ask) == 1 with input as bash("git commit $X", [g("commit", [null], false)], ["git"], {})
	count(gb.ask) == 0 with input as bash("git status", [g("status", [], false)], ["git"], {})
	count(gb.ask) == 0 with input as bash("git commit -m \"$MSG\"", [g("commit", ["-m", null], false)], ["git"], {})
}

test_config_worktree_written_by_another_tool_is_denied if {
	e := {
		"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {}, "cwd": "/p", "builtin_config": cfg,
		"tool_paths": [{"path": "/p/.git/config.worktree", "original": ".git/config.worktree", "arg": "args.filePath", "access": "write"}],
	}
	count(gb.deny) > 0 with input as e
}

write_of(path) := {
	"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {}, "cwd": "/p", "builtin_config": cfg,
	"tool_paths": [{"path": path, "original": path, "arg": "args.filePath", "access": "write"}],
}

test_submodule_and_worktree_git_files_written_by_another_tool_are_denied if {
	denied(write_of("/p/.git/modules/lib/config"))
	denied(write_of("/p/.git/modules/lib/hooks/pre-commit"))
	denied(write_of("/p/.git/modules/a/modules/b/config"))
	denied(write_of("/p/.git/worktrees/wt/commondir"))
	not denied(write_of("/p/.git/modules/lib/info/exclude"))
	not denied(write_of("/p/src/config"))
	not denied(write_of("/p/hooks/x.py"))
}
