# METADATA
# scope: package
# title: What a tool call touches, for the builtin policies
# description: >-
#   One view over the structured input (docs/input.md): `input.tool_paths` (every path any tool
#   names, with its access) and, for Bash and for MCP/unknown tools whose arguments carry a shell
#   command, `input.shell` (cupcake_py.shell: resolved commands,
#   effects, glob patterns, opaque parts, git facts). Policies ask:
#     targets          {path, lpath (lower-cased), access, via} every concrete path touched: access is read, write,
#                      delete, link or execute (tool paths of access unknown count as write)
#     tree_changes     changes that reach everything below their path (deletes, and writes of
#                      tree writers: rsync, unzip, tar -x, chmod -R, git checkout/restore/reset)
#     globs            {pattern, access} unexpanded shell globs (absolute) of writes/deletes/links
#     uncertain_change reasons why a write/delete/link target may be unknown (opaque parts,
#                      no analysis, a hard link that could not be compared)
#     uncertain_read   reasons why a read target may be unknown
#     commands         the simple commands (name, argv, …); source: the raw command, lower-cased
#   A Bash event without `input.shell`, or one the parser rejected, is uncertain in every way.
#   No regex and no host builtins: string and set operations only.
# custom:
#   routing:
#     required_events: []
#     required_tools: []
#     required_signals: []
package cupcake.system.effects

import rego.v1

pre if input.hook_event_name == "PreToolUse"

bash if {
	pre
	input.tool_name == "Bash"
}

# Bash, and MCP or unknown tools whose arguments carry a shell command (cupcake_py/enrich/tool_call.py)
shell := input.shell if {
	pre
	is_object(input.shell)
}

analysed if shell.parsed == true

source := lower(s) if {
	bash
	s := object.get(input, ["shell", "source"], object.get(input, ["tool_input", "command"], ""))
	is_string(s)
} else := lower(s) if {
	s := shell.source
	is_string(s)
}

commands := [c | some c in object.get(shell, "commands", []); is_object(c)]

# Names of the commands that run (basename, wrappers peeled); null names left out.
names contains c.name if {
	some c in commands
	is_string(c.name)
}

git := [g | some g in object.get(shell, "git", []); is_object(g)]

facts := {f | some f in object.get(shell, "facts", []); is_string(f)}

effect_kinds := {"reads": "read", "writes": "write", "deletes": "delete", "links": "link", "executes": "execute"}

# ------------------------------------------------------------------------------ targets

targets contains {"path": p, "lpath": lower(p), "access": access, "via": "shell"} if {
	some kind, access in effect_kinds
	some p in object.get(shell, ["effects", kind], [])
	is_string(p)
}

targets contains {"path": e.path, "lpath": lower(e.path), "access": tool_access(e.access), "via": e.arg} if {
	pre
	some e in object.get(input, "tool_paths", [])
	is_string(e.path)
}

# Events made before tool_paths existed (hand-written inputs): the resolved path and patch files.
targets contains {"path": input.resolved_file_path, "lpath": lower(input.resolved_file_path), "access": legacy_access, "via": "resolved_file_path"} if {
	pre
	not input.tool_paths
	is_string(input.resolved_file_path)
}

targets contains {"path": p, "lpath": lower(p), "access": "write", "via": "affected_files"} if {
	pre
	not input.tool_paths
	some p in object.get(input, "affected_files", [])
	is_string(p)
}

tool_access("read") := "read"

tool_access("write") := "write"

tool_access("delete") := "delete"

tool_access(a) := "write" if not a in {"read", "delete"}

reading_tools := {"Read", "Grep", "Glob", "List", "LS", "WebFetch"}

legacy_access := "read" if input.tool_name in reading_tools

else := "write"

changing := {"write", "delete", "link"}

changes contains t if {
	some t in targets
	t.access in changing
}

reads contains t if {
	some t in targets
	t.access in {"read", "execute"}
}

globs contains {"pattern": p, "access": access} if {
	some kind, access in effect_kinds
	access in changing
	some p in object.get(shell, ["patterns", kind], [])
	is_string(p)
}

read_globs contains p if {
	some p in object.get(shell, ["patterns", "reads"], [])
	is_string(p)
}

# Commands that write a whole tree below a directory operand (a write effect on a directory
# then reaches everything under it): rsync, unzip, tar -x, cpio, chmod/chown -R, and git
# subcommands that rewrite the work tree.
tree_write if {
	some c in commands
	c.name in {"rsync", "unzip", "cpio", "7z", "ditto"}
}

tree_write if {
	some c in commands
	c.name in {"chmod", "chown", "chgrp", "setfacl", "chattr"}
	some a in args(c)
	recursive_flag(a)
}

tree_write if {
	some c in commands
	c.name == "tar"
	some a in args(c)
	not startswith(a, "--")
	contains(a, "x")
	count(a) < 8
}

tree_write if {
	some g in git
	git_tree_write(g.subcommand, {a | some a in object.get(g, "args", []); is_string(a)})
}

git_tree_write("restore", _) := true

git_tree_write("reset", a) if count({"--hard", "--merge", "--keep"} & a) > 0

git_tree_write("checkout", a) if count({"--", ".", "-f", "--force", "-p", "--patch"} & a) > 0

git_tree_write("switch", a) if count({"-f", "--force", "--discard-changes"} & a) > 0

git_tree_write("clean", a) if count({"-n", "--dry-run"} & a) == 0

# `git stash` / `stash pop|apply` change only tracked files that differ from a commit (files this
# line could not have changed without its own effects being seen); with untracked (-u) or ignored
# (-a) files it reaches the whole tree. A stash built by plumbing is a hooks bypass (git.hooks_disabled).
git_tree_write("stash", a) if count({"-u", "--include-untracked", "-a", "--all"} & a) > 0

recursive_flag(a) if a in {"-R", "--recursive"}

recursive_flag(a) if {
	startswith(a, "-")
	not startswith(a, "--")
	contains(a, "R")
}

# Changes that reach everything below their path: deletes always, writes of tree writers.
tree_changes contains t if {
	some t in changes
	t.access == "delete"
}

tree_changes contains t if {
	tree_write
	some t in changes
	t.access == "write"
}

# ------------------------------------------------------------------------------ uncertainty

# The kernel floor (docs/sandbox.md): this call runs inside cupcake's bubblewrap sandbox and its
# profile guarantees `what` (state_paths: cupcake's state is read-only or hidden; secrets: the
# sensitive set is hidden; protected_paths: every protected pattern is read-only; system:
# everything outside the project, temp dirs and tool caches is read-only). An uncertainty
# about `what` is then no reason to ask: the builtins' `on_uncertain: ask` answers allow
# (an explicit `on_uncertain: deny` still denies).
floor_covers(what) if {
	input.sandbox.applies == true
	input.sandbox.covers[what] == true
}

opaque contains o if {
	some o in object.get(shell, "opaque", [])
	is_object(o)
	not harmless_inline(o)
}

# Inline interpreter code (`python3 -c "print(1)"`, `node -e …`) is opaque to the analysis, but
# code that names no file, process, import or encoding capability at all cannot reach a file:
# it is not an uncertainty. Any capability word (open, os., shutil, exec, getattr, \x, …) or an
# opaque word in the command keeps it uncertain.
harmless_inline(o) if {
	contains(object.get(o, "reason", ""), "inline interpreter")
	is_number(o.command)
	c := commands[o.command]
	words := object.get(c, "argv", [null])
	every w in words {
		is_string(w)
	}
	code := lower(concat(" ", array.slice(words, 1, count(words))))
	every cap in data.cupcake.system.tables.inline_capabilities {
		not contains(code, cap)
	}
}

uncertain_change contains concat("", [o.kind, ": ", object.get(o, "reason", "unknown")]) if {
	some o in opaque
	o.kind in {"writes", "deletes", "links", "command"}
}

uncertain_change contains "the command was not analysed (no shell analysis in the input)" if {
	bash
	not shell
}

uncertain_change contains "the command could not be parsed" if {
	shell
	not analysed
}

uncertain_change contains concat("", ["hard link ", p, " could not be compared with every protected path"]) if {
	some p in object.get(input, "link_uncertain", [])
}

uncertain_read contains concat("", [o.kind, ": ", object.get(o, "reason", "unknown")]) if {
	some o in opaque
	o.kind in {"reads", "executes", "command"}
}

uncertain_read contains r if {
	some r in uncertain_change
	not startswith(r, "writes: ")
	not startswith(r, "deletes: ")
	not startswith(r, "links: ")
}

# Path operands the analysis did not account for: an argument of a command (`black
# config/x.yml`, `openssl … -out x`, `ssh-keygen -f ~/.ssh/k`, `--out=x`) whose path is in no
# effect list or only read, by a program not known to only read (the analysis lists operands of
# programs it does not know as reads; effects are realpath-resolved, words are not, so a known
# reader naming a symlink is left to the analysis). What the program does with it is unknown, so a policy that finds one of its
# protected paths here treats it as uncertain. Printers and git (analysed separately) and words
# with spaces (messages) are left out.
accounted := {t.lpath | some t in targets}

changed := {t.lpath | some t in changes}

unaccounted contains {"path": p, "lpath": lp, "command": c.name} if {
	some c in commands
	is_string(c.name)
	not c.name in data.cupcake.system.tables.printers
	is_string(c.cwd)
	some w in operand_words(c)
	p := abs_word(w, c.cwd)
	lp := lower(p)
	not lp in changed
	not c.name in data.cupcake.system.tables.readers
}

operand_words(c) := {w |
	some i, a in object.get(c, "argv", [])
	i > 0
	is_string(a)
	not contains(a, " ")
	some w in option_value(a)
	w != ""
}

option_value(a) := [a] if not startswith(a, "-")

option_value(a) := [v] if {
	startswith(a, "-")
	parts := split(a, "=")
	count(parts) == 2
	v := parts[1]
}

option_value(a) := [] if {
	startswith(a, "-")
	count(split(a, "=")) != 2
}

abs_word(w, _) := trim_right(w, "/") if startswith(w, "/")

abs_word(w, cwd) := trim_right(concat("/", [trim_right(cwd, "/"), trim_prefix(w, "./")]), "/") if not startswith(w, "/")

# One line naming the uncertainty, for reasons.
first_reason(reasons) := sort(reasons)[0]

# ------------------------------------------------------------------------------ helpers

# The last component of a path.
basename(p) := parts[count(parts) - 1] if parts := split(p, "/")

# The directory of an absolute path ("/" for top-level entries).
dirname(p) := d if {
	parts := split(p, "/")
	d := concat("/", array.slice(parts, 0, count(parts) - 1))
	d != ""
} else := "/"

# argv words after argv[0] that are strings.
args(c) := [a | some i, a in object.get(c, "argv", []); i > 0; is_string(a)]

# A command word or argument is opaque.
has_opaque_word(c) if {
	some a in object.get(c, "argv", [])
	a == null
}
