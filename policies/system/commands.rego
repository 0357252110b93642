# METADATA
# scope: package
# title: Shell command helpers shared by the builtin policies
# description: >-
#   Word-level helpers (has_verb, has_dangerous_verb, creates_symlink, creates_hardlink,
#   symlink_involves_path, has_output_redirect, inline_script, read_only) and `analyze(command)`,
#   one structured analysis of a command line that policies keep in a rule so the regex work
#   runs once per evaluation.
# custom:
#   routing:
#     required_events: []
#     required_tools: []
#     required_signals: []
package cupcake.system.commands

import rego.v1

# The command has `verb` as a whole word: at the start, after whitespace or ; | & ( { or as
# the last part of a path (`/bin/rm`, `\rm`), optionally quoted (`'rm'`).
has_verb(command, verb) if {
	regex.match(concat("", [`(^|[\s;|&({/\\'"])`, regex_escape(verb), `['"]?($|[\s;|&)}])`]), command)
}

# The command contains any verb of `verbs`.
has_dangerous_verb(command, verbs) if {
	some verb in verbs
	has_verb(command, verb)
}

# `ln -s ...`, `ln --symbolic ...`, or a hard link with `ln`/`link`.
creates_symlink(command) if {
	has_verb(command, "ln")
	regex.match(`(^|\s)-[a-zA-Z]*s|--symbolic`, command)
}

creates_hardlink(command) if {
	has_verb(command, "link")
}

creates_hardlink(command) if {
	has_verb(command, "ln")
	not creates_symlink(command)
}

# A link command that names `path` (either side of the link).
symlink_involves_path(command, path) if {
	creates_symlink(command)
	contains(command, trim_suffix(path, "/"))
}

symlink_involves_path(command, path) if {
	creates_hardlink(command)
	contains(command, trim_suffix(path, "/"))
}

# Output redirection to a file (not `2>&1`, `>&2` or `>/dev/null`-like devices), or `tee`.
has_output_redirect(command) if contains(without_harmless_redirects(command), ">")

has_output_redirect(command) if has_verb(command, "tee")

# The command without `2>&1`, `>&2`, `>/dev/null`, `&>/dev/null`, … (they write no file).
without_harmless_redirects(command) := regex.replace(command, `[0-9]*>>?\s*&\s*[0-9-]+|[0-9]*&?>>?\s*/dev/(null|stdout|stderr|tty)(\s|$|[;|&)])`, " ")

# `python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, `bash -c`, … run code given inline.
inline_script(command) if {
	regex.match(`(^|[\s;|&(/])(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|perl|php|lua|bash|sh|zsh|dash|ksh|fish)\s+(\S+\s+)*(-c|-e|-r|--eval|-E)(\s|$)`, command)
}

# (Most escaped words have no special character: those need no regex work on the host.)
regex_escape(s) := s if not has_regex_special(s)

else := regex.replace(s, `([\\.+*?()|\[\]{}^$])`, `\$1`)

has_regex_special(s) if {
	some special in ["\\", ".", "+", "*", "?", "(", ")", "|", "[", "]", "{", "}", "^", "$"]
	contains(s, special)
}

# A shell word with a glob wildcard.
has_wildcard(word) if {
	some wildcard in ["*", "?", "["]
	contains(word, wildcard)
}

# ---------------------------------------------------------------------------------------------
# Simple commands

# The simple commands of a command line, split at ; && || | & newlines, `$(`, backquotes and
# parentheses (quotes are not respected: splitting inside a quoted string only makes a command
# look less read-only, never more).
segments(command) := [s |
	some part in regex.split("\\s*(?:&&|\\|\\||\\$\\(|[;|&`()\\n])\\s*", command)
	s := trim_space(part)
	s != ""
]

# Leading variable assignments and wrappers (sudo, env, nohup, time, timeout N, xargs, …) with
# their flags removed.
without_wrappers(segment) := regex.replace(segment, `^(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|doas|env|nohup|time|exec|command|builtin|nice|stdbuf|setsid|xargs|timeout\s+\S+)\s+(?:-\S+\s+)*)*`, "")

# The command word of a simple command (after wrappers): its basename, without quotes or a
# leading backslash.
verb(segment) := verb_of(split(trim_space(without_wrappers(segment)), " "))

verb_of(words) := v if {
	parts := split(trim(words[0], `'"\`), "/")
	v := parts[count(parts) - 1]
}

readers := {
	"cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "wc", "file", "stat",
	"ls", "find", "sort", "uniq", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum",
	"hexdump", "xxd", "strings", "od", "du", "tree", "realpath", "readlink", "basename", "dirname", "pwd",
	"echo", "printf", "test", "[", "true", "false", "awk", "gawk", "sed", "jq", "nl", "cut", "tr", "column",
	"comm", "fold", "bat", "cd", "pushd", "popd",
}

# Flags that make an otherwise reading command write, delete or run something.
writing_flags := {
	"sed": `(^|\s)(-[a-zA-Z]*i|--in-place)`,
	"find": `(^|\s)-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)(\s|$)`,
	"sort": `(^|\s)(-[a-zA-Z]*o|--output)`,
	"tree": `(^|\s)-o(\s|$)`,
	"awk": `system\s*\(|\|\s*getline|print[^;]*\|`,
	"gawk": `system\s*\(|\|\s*getline|print[^;]*\||-i\s*inplace`,
	"uniq": `^\S+(\s+-\S+)*\s+[^-\s]\S*\s+[^-\s]`,
}

# Operations that change or remove what lies below a directory operand.
destructive_verbs := {"rm", "rmdir", "mv", "chmod", "chown", "chgrp", "shred", "truncate", "unlink", "rsync"}

removing_verbs := {"rm", "rmdir", "chmod", "chown", "chgrp", "shred", "truncate", "unlink"}

# {text, verb, words, reads_only, destructive, removes} of one simple command.
segment_info(text) := info if {
	words := split(trim_space(without_wrappers(text)), " ")
	v := verb_of(words)
	ro := reads_only_verb(v, concat(" ", words))
	info := {
		"text": text, "verb": v, "words": words, "reads_only": ro,
		# readers with a writing flag (find -delete, sed -i) count as destructive
		"destructive": some_true([v in destructive_verbs, writer_reader(v, ro)]),
		"removes": some_true([v in removing_verbs, writer_reader(v, ro)]),
	}
}

reads_only_verb(v, rest) := false if not v in readers

else := false if regex.match(writing_flags[v], rest)

else := true

writer_reader(v, ro) := true if {
	v in readers
	ro == false
} else := false

some_true(bools) := true if true in bools

else := false

# ---------------------------------------------------------------------------------------------
# One analysis per command line

# {command, segments, substitution, redirect, read_only, inline_script, links,
#  changes_directory, glob_words}. read_only: every simple command only reads (a reading verb,
# no writing flag), no output redirection, no command or process substitution.
analyze(command) := a if {
	segs := [segment_info(t) | some t in segments(without_harmless_redirects(command))]
	substitution := regex.match("\\$\\(|`|<\\(|>\\(", command)
	redirect := flag_redirect(command)
	a := {
		"command": command,
		"segments": segs,
		"substitution": substitution,
		"redirect": redirect,
		"read_only": all_read_only(segs, substitution, redirect),
		"inline_script": flag_inline(command),
		"links": flag_links(command),
		"changes_directory": count([s | some s in segs; s.verb in {"cd", "pushd", "popd"}]) > 0,
		"glob_words": [w | some w in split(command, " "); has_wildcard(w)],
	}
}

flag_redirect(command) := true if has_output_redirect(command)

else := false

flag_inline(command) := true if inline_script(command)

else := false

flag_links(command) := true if creates_symlink(command)

else := true if creates_hardlink(command)

else := false

all_read_only(segs, substitution, redirect) := false if substitution

else := false if redirect

else := false if {
	some s in segs
	not s.reads_only
} else := true

read_only(command) if analyze(command).read_only
