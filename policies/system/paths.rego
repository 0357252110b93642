# METADATA
# scope: package
# title: Path pattern matching shared by the builtin policies
# description: >-
#   A configured path pattern (protected_paths.paths, rulebook_security_guardrails.protected_paths,
#   system_protection.additional_paths, sensitive_data_protection.additional_patterns) is matched
#   against absolute, symlink-free paths (resolved_file_path, affected_files,
#   affected_parent_directories), case-insensitively:
#     /abs/x or /abs/x/   the path itself and everything below it
#     rel/x or rel/x/     a `/rel/x` component sequence anywhere (a bare name `x` = any file or
#                         directory named x), and everything below it; a leading `./` is ignored
#     patterns with * ?   glob: `*` any characters (also `/`), `?` one character other than `/`;
#                         anchored at the start when absolute, at any `/` when relative; a match
#                         also covers everything below it
#   `~` is expanded by cupcake_py/engine/builtin_config.py before policies see a pattern.
package cupcake.system.paths

import rego.v1

# The pattern without `./` and trailing `/`, lower-cased.
normalize(pattern) := p if {
	lowered := lower(pattern)
	no_dot := trim_prefix(lowered, "./")
	p := trim_right(no_dot, "/")
}

is_glob(pattern) if regex.match(`[*?\[]`, pattern)

is_absolute(pattern) if startswith(pattern, "/")

regex_escape(s) := regex.replace(s, `([\\.+*?()|\[\]{}^$])`, `\$1`)

# Glob pattern -> regex fragment (`*` any characters, `?` one non-slash character).
glob_fragment(pattern) := f if {
	escaped := regex_escape(normalize(pattern))
	star := replace(escaped, `\*`, `.*`)
	f := replace(star, `\?`, `[^/]`)
}

# `path` (absolute) is the pattern's file/directory or lies below it.
matches(path, pattern) if {
	not is_glob(pattern)
	is_absolute(pattern)
	p := normalize(pattern)
	p != ""
	within(lower(path), p)
}

matches(path, pattern) if {
	not is_glob(pattern)
	not is_absolute(pattern)
	p := normalize(pattern)
	p != ""
	relative_within(lower(path), p)
}

matches(path, pattern) if {
	is_glob(pattern)
	is_absolute(pattern)
	regex.match(concat("", ["^", glob_fragment(pattern), "(/.*)?$"]), lower(path))
}

matches(path, pattern) if {
	is_glob(pattern)
	not is_absolute(pattern)
	regex.match(concat("", ["(^|/)", glob_fragment(pattern), "(/.*)?$"]), lower(path))
}

relative_within(path, p) if endswith(path, concat("", ["/", p]))

relative_within(path, p) if contains(path, concat("", ["/", p, "/"]))

# `path` is `dir` or below it (both lower-cased, no trailing slash).
within(path, dir) if path == dir

within(path, dir) if startswith(path, concat("", [dir, "/"]))

within(_, "/") := true

# Where a pattern lives: absolute patterns as written, relative ones below `cwd`.
anchored(pattern, _) := normalize(pattern) if is_absolute(pattern)

anchored(pattern, cwd) := concat("/", [trim_right(lower(cwd), "/"), normalize(pattern)]) if not is_absolute(pattern)

# `dir` (an affected directory) strictly contains the pattern's location, so an operation on
# `dir` (rm -rf dir/*, chmod -R, mv dir …) reaches the protected path. Globs are cut before their
# first wildcard.
contains_protected(dir, pattern, cwd) if {
	location := regex.replace(anchored(pattern, cwd), `[*?\[].*$`, "")
	d := trim_right(lower(dir), "/")
	loc := trim_right(location, "/")
	d != loc
	within(loc, d)
}

# Word boundaries for finding a path inside command text.
before := `(^|[^a-z0-9_.~$-])`

after := `($|[^a-z0-9_.-])`

# Texts a pattern may be written as in a command: itself, and for paths under the home
# directory also `~/…`, `$HOME/…` and `${HOME}/…`.
text_forms(pattern, home) := forms if {
	p := normalize(pattern)
	h := trim_right(lower(home), "/")
	h != ""
	startswith(p, concat("", [h, "/"]))
	rest := substring(p, count(h), -1)
	forms := {p, concat("", ["~", rest]), concat("", ["$home", rest]), concat("", ["${home}", rest])}
}

text_forms(pattern, home) := {normalize(pattern)} if {
	h := trim_right(lower(home), "/")
	not startswith(normalize(pattern), concat("", [h, "/"]))
}

text_forms(pattern, "") := {normalize(pattern)}

# The (lower-cased) command text names the pattern as a whole path word.
mentioned(command, pattern, home) if {
	not is_glob(pattern)
	some form in text_forms(pattern, home)
	form != ""
	regex.match(concat("", [before, regex_escape(form), after]), lower(command))
}

mentioned(command, pattern, _) if {
	is_glob(pattern)
	fragment := replace(replace(glob_fragment(pattern), ".*", `[^\s'"|;&<>]*`), "[^/]", `[^\s'"|;&<>/]`)
	regex.match(concat("", [before, fragment, after]), lower(command))
}

# A shell glob word (`secre*`, `./*`, `../.c*/x`) used in `base` can expand to the pattern's
# location or one of its ancestors. Like the shell, a wildcard at the start of a name never
# matches a leading dot: `*` does not reach `.cupcake`.
glob_reaches(word, base, pattern, cwd) if {
	regex.match(`[*?\[]`, word)
	g := dir_form(lexical(word, base))
	re := concat("", ["^", shell_glob_regex(lower(g)), "$"])
	location := trim_right(regex.replace(anchored(pattern, cwd), `[*?\[].*$`, ""), "/")
	parts := split(location, "/")
	some i in numbers.range(2, count(parts))
	regex.match(re, concat("/", array.slice(parts, 0, i)))
}

shell_glob_regex(g) := r if {
	escaped := regex_escape(g)
	r1 := replace(escaped, `/\*`, `/([^/.][^/]*)?`)
	r2 := replace(r1, `\*`, `[^/]*`)
	r3 := replace(r2, `/\?`, `/[^/.]`)
	r4 := replace(r3, `\?`, `[^/]`)
	r5 := regex.replace(r4, `\\\[!([^\\]*)\\\]`, `[^$1]`)
	r := regex.replace(r5, `\\\[([^\\]*)\\\]`, `[$1]`)
}

# Lexical normal form of `word` relative to `base`: absolute, `.` and `..` applied (up to eight
# levels), no trailing slash. Symlinks are not resolved (the engine's resolved paths cover those).
lexical(word, base) := n if {
	w := trim(word, `'"`)
	joined := join_base(w, base)
	n := collapse(collapse(collapse(collapse(collapse(collapse(collapse(collapse(concat("", [joined, "/"])))))))))
}

join_base(w, _) := w if startswith(w, "/")

join_base(w, base) := concat("/", [trim_right(base, "/"), w]) if not startswith(w, "/")

collapse(p) := r if {
	a := regex.replace(p, `/(\./)+`, "/")
	b := regex.replace(a, `//+`, "/")
	c := regex.replace(b, `^/\.\./`, "/")
	r := regex.replace(c, `/[^/]+/\.\./`, "/")
}

# lexical() output ends with `/`; the directory form without it ("/" stays "/").
dir_form(p) := "/" if p == "/"

dir_form(p) := trim_right(p, "/") if p != "/"
