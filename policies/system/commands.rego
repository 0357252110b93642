# METADATA
# scope: package
# title: Shell command helpers shared by the builtin policies
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
	regex.match(sprintf(`(^|[\s;|&({/\\'"])%s['"]?($|[\s;|&)}])`, [regex_escape(verb)]), command)
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

# The command without `2>&1`, `>&2`, `>/dev/null`, `&>/dev/null`, … (they write no file).
without_harmless_redirects(command) := regex.replace(command, `[0-9]*>>?\s*&\s*[0-9-]+|[0-9]*&?>>?\s*/dev/(null|stdout|stderr|tty)(\s|$|[;|&)])`, " ")

has_output_redirect(command) if has_verb(command, "tee")

regex_escape(s) := regex.replace(s, `([\\.+*?()|\[\]{}^$])`, `\$1`)

# ---------------------------------------------------------------------------------------------
# Simple commands and read-only detection

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

# The command word of a simple command: its basename, without quotes or a leading backslash.
verb(segment) := v if {
	words := split(trim_space(without_wrappers(segment)), " ")
	first := trim(words[0], `'"\`)
	parts := split(first, "/")
	v := parts[count(parts) - 1]
}

readers := {
	"cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "wc", "file", "stat",
	"ls", "find", "sort", "uniq", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum",
	"hexdump", "xxd", "strings", "od", "du", "tree", "realpath", "readlink", "basename", "dirname", "pwd",
	"echo", "printf", "test", "[", "true", "false", "awk", "gawk", "sed", "jq", "nl", "cut", "tr", "column",
	"comm", "fold", "bat",
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

reads_only(segment) if {
	v := verb(segment)
	v in readers
	not writes_by_flag(v, segment)
}

writes_by_flag(v, segment) if regex.match(writing_flags[v], segment)

# Every simple command only reads: a reading verb, no writing flag, no output redirection and no
# command or process substitution.
read_only(command) if {
	not regex.match("\\$\\(|`|<\\(|>\\(", command)
	not has_output_redirect(command)
	every segment in segments(without_harmless_redirects(command)) {
		reads_only(segment)
	}
}

# `python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, `bash -c`, … run code given inline.
inline_script(command) if {
	regex.match(`(^|[\s;|&(/])(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|perl|php|lua|bash|sh|zsh|dash|ksh)\s+(\S+\s+)*(-c|-e|-r|--eval|-E)(\s|$)`, command)
}
