package cupcake.policies.builtins.git_block_no_verify_test

import data.cupcake.policies.builtins.git_block_no_verify as g
import rego.v1

bash(cmd) := {"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Bash", "tool_input": {"command": cmd}, "builtin_config": {"git_block_no_verify": {"exceptions": ["git push --no-verify origin gh-pages"]}}}

denied(e) if count(g.deny) > 0 with input as e

test_no_verify_denied if {
	every cmd in [
		"git commit --no-verify -m 'x'", "git commit -n -m x", "git commit -an -m x", "git commit -nm 'wip'",
		"git push --no-verify", "git push origin main --no-verify", "git merge --no-verify dev", "git commit --no-verif -m x",
		"cd repo && git commit -n", "git -C repo commit --no-verify", "/usr/bin/git commit -n", "bash -c \"git commit --no-verify -m x\"",
		"sh -c 'git commit -n'", "GIT_AUTHOR_NAME=x git commit -n",
	] {
		denied(bash(cmd))
	}
}

test_normal_git_allowed if {
	every cmd in [
		"git commit -m 'add -n flag'", "git commit -m \"fix --no-verify docs\"", "git push -n origin main", "git push",
		"git merge -n dev", "git commit -am 'x'", "git commit -m n", "git log -n 5", "git status", "echo --no-verify",
		"git commit -F msg.txt", "git commit -mn", "git push --no-verify origin gh-pages",
	] {
		not denied(bash(cmd))
	}
}

test_hook_disabling_denied if {
	every cmd in [
		"git -c core.hooksPath=/dev/null commit -m x", "git -c core.hookspath=/tmp/none commit -m x",
		"git config core.hooksPath /dev/null", "git config --local core.HooksPath ''", "git config core.hookspath /dev/null",
		"chmod -x .git/hooks/pre-commit", "chmod 644 .git/hooks/pre-commit", "chmod a-x .git/hooks/*",
		"rm .git/hooks/pre-commit", "rm -rf .git/hooks", "mv .git/hooks/pre-commit /tmp/", "echo 'exit 0' > .git/hooks/pre-commit",
		"HUSKY=0 git commit -m x", "ln -sf /dev/null .git/hooks/pre-commit", "sed -i 1d .git/hooks/pre-push",
	] {
		denied(bash(cmd))
	}
}

test_hook_maintenance_allowed if {
	every cmd in ["git config core.hooksPath .husky", "chmod +x .git/hooks/pre-commit", "chmod 755 .git/hooks/pre-commit",
		"ls .git/hooks", "cat .git/hooks/pre-commit", "git config core.hooksPath"] {
		not denied(bash(cmd))
	}
}

test_editing_hooks_denied if {
	denied({"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Write", "tool_input": {"filePath": ".git/hooks/pre-commit"}, "resolved_file_path": "/p/.git/hooks/pre-commit"})
	denied({"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "ApplyPatch", "tool_input": {"patchText": "…"}, "affected_files": ["/p/.git/hooks/pre-push"]})
	not denied({"hook_event_name": "PreToolUse", "cwd": "/p", "tool_name": "Write", "tool_input": {"filePath": "hooks/x"}, "resolved_file_path": "/p/hooks/x"})
}

test_reason_and_rule_id if {
	some d in g.deny with input as bash("git commit -n -m x")
	d.rule_id == "BUILTIN-GIT-BLOCK-NO-VERIFY"
	d.reason == "Git operations with --no-verify are not permitted. Commit hooks must run for code quality and security checks. (git_block_no_verify: `git commit` with -n (same as --no-verify))"
}
