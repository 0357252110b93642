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
#   `compile(pattern, home, cwd)` turns a pattern into regexes once; policies keep the compiled
#   list in a rule (one computation per evaluation) and match with one regex call per path.
package cupcake.system.paths

import rego.v1

import data.cupcake.system.commands

# The pattern without `./` and trailing `/`, lower-cased.
normalize(pattern) := trim_right(trim_prefix(lower(pattern), "./"), "/")

# (Native string checks, not a regex: this runs once per configured pattern.)
is_glob(pattern) := true if {
	some wildcard in ["*", "?", "["]
	contains(pattern, wildcard)
} else := false

# Word boundaries for finding a path inside (lower-cased) command text.
before := `(^|[^a-z0-9_.~$-])`

after := `($|[^a-z0-9_.-])`

# {pattern, glob, norm, absolute, path_re, text_re, location}:
#   norm      the normalized pattern; absolute: it starts with `/`
#   path_re   matches an absolute lower-cased path that is the pattern's file/dir or below it
#             (used for glob patterns; plain ones are matched with string functions)
#   text_re   finds the pattern written in a command (also as ~/…, $HOME/…, ${HOME}/… under home)
#   location  where the pattern lives (relative patterns below cwd), cut before any wildcard
compile(pattern, home, cwd) := c if {
	norm := normalize(pattern)
	norm != ""
	glob := is_glob(norm)
	absolute := startswith(norm, "/")
	escaped := commands.regex_escape(norm)
	c := {
		"pattern": pattern,
		"glob": glob,
		"norm": norm,
		"absolute": absolute,
		"path_re": path_regex(escaped, glob, absolute),
		"text_re": text_regex(norm, escaped, glob, home),
		"location": location_of(norm, absolute, cwd),
	}
}

compile(pattern, _, _) := {"pattern": pattern, "glob": true, "norm": "", "absolute": false, "path_re": `^$a`, "text_re": `^$a`, "location": "/\u0000"} if normalize(pattern) == ""

# `*` any characters, `?` one non-slash character, `[…]` kept.
glob_fragment(escaped) := replace(replace(unbracket(escaped), `\*`, `.*`), `\?`, `[^/]`)

unbracket(escaped) := regex.replace(regex.replace(escaped, `\\\[!([^\\]*)\\\]`, `[^$1]`), `\\\[([^\\]*)\\\]`, `[$1]`)

path_regex(escaped, false, true) := concat("", ["^", escaped, "(/.*)?$"])

path_regex(escaped, false, false) := concat("", ["/", escaped, "(/|$)"])

path_regex(escaped, true, true) := concat("", ["^", glob_fragment(escaped), "(/.*)?$"])

path_regex(escaped, true, false) := concat("", ["(^|/)", glob_fragment(escaped), "(/.*)?$"])

text_regex(norm, escaped, false, home) := concat("", [before, "(", concat("|", home_forms(norm, escaped, home)), ")", after])

text_regex(_, escaped, true, _) := concat("", [before, text_glob(escaped), after])

text_glob(escaped) := replace(replace(unbracket(escaped), `\*`, `[^\s'"|;&<>]*`), `\?`, `[^\s'"|;&<>/]`)

home_forms(norm, escaped, home) := [escaped, concat("", [`~`, rest]), concat("", [`\$home`, rest]), concat("", [`\$\{home\}`, rest])] if {
	h := trim_right(lower(home), "/")
	h != ""
	startswith(norm, concat("", [h, "/"]))
	rest := commands.regex_escape(substring(norm, count(h), -1))
} else := [escaped]

location_of(norm, true, _) := cut_glob(norm)

location_of(norm, false, cwd) := cut_glob(concat("/", [trim_right(lower(cwd), "/"), norm]))

cut_glob(p) := trim_right(p, "/") if not is_glob(p)

cut_glob(p) := trim_right(regex.replace(p, `[*?\[].*$`, ""), "/") if is_glob(p)

# --------------------------------------------------------------------------- matching

# `path` (absolute) is the compiled pattern's file/directory or lies below it. Plain patterns
# are string checks (the same sets of paths as their path_re; no regex work on the host).
matches(path, c) if {
	c.glob
	regex.match(c.path_re, lower(path))
}

matches(path, c) if {
	not c.glob
	c.absolute
	within(lower(path), c.norm)
}

matches(path, c) if {
	not c.glob
	not c.absolute
	contains(concat("", [lower(path), "/"]), concat("", ["/", c.norm, "/"]))
}

# The command text names the pattern.
mentioned(text, c) if regex.match(c.text_re, lower(text))

# `dir` (a directory an operation changes) strictly contains the pattern's location, so the
# operation (rm -rf dir/*, chmod -R, mv dir …) reaches the protected path.
contains_protected(dir, c) if {
	d := trim_right(lower(dir), "/")
	d != c.location
	within(c.location, d)
}

within(path, dir) if path == dir

within(path, dir) if startswith(path, concat("", [dir, "/"]))

within(_, "") := true

# A shell glob word (`secre*`, `./*`, `../.c*/x`, `.cup*/**`) used in `base` can expand to the
# pattern's location, one of its ancestors or something inside it: the glob's first k
# components match the location's first k components, k = the shorter of the two. Like the
# shell, a wildcard at the start of a name never matches a leading dot (`*` does not reach
# `.cupcake`); `**` counts as one component.
glob_reaches(word, base, c) if {
	gparts := split(dir_form(lexical(word, base)), "/")
	lparts := split(c.location, "/")
	k := min([count(gparts), count(lparts)])
	k >= 2
	g := concat("/", array.slice(gparts, 0, k))
	regex.match(concat("", ["^", shell_glob_regex(lower(g)), "$"]), concat("/", array.slice(lparts, 0, k)))
}

shell_glob_regex(g) := r if {
	escaped := replace(unbracket(commands.regex_escape(g)), `\*\*`, `\*`)
	r1 := replace(escaped, `/\*`, `/([^/.][^/]*)?`)
	r2 := replace(r1, `\*`, `[^/]*`)
	r3 := replace(r2, `/\?`, `/[^/.]`)
	r := replace(r3, `\?`, `[^/]`)
}

# --------------------------------------------------------------------------- lexical paths

# Lexical normal form of `word` relative to `base`: absolute, `.` and `..` applied (up to eight
# levels), ending with `/`. Symlinks are not resolved (the engine's resolved paths cover those).
lexical(word, base) := normal(concat("", [join_base(trim(word, `'"`), base), "/"]))

# Only paths with `/.` or `//` need collapsing (regex work on the host); others are normal.
normal(p) := p if not regex.match(`/\.|//`, p)

else := collapse(collapse(collapse(collapse(collapse(collapse(collapse(collapse(p))))))))

join_base(w, _) := w if startswith(w, "/")

join_base(w, base) := concat("/", [trim_right(base, "/"), w]) if not startswith(w, "/")

collapse(p) := p if not regex.match(`/\.\.?/|//`, p)

else := r if {
	a := regex.replace(p, `/(\./)+`, "/")
	b := regex.replace(a, `//+`, "/")
	c := regex.replace(b, `^/\.\./`, "/")
	r := regex.replace(c, `/[^/]+/\.\./`, "/")
}

# lexical() output without the trailing `/` ("/" stays "/").
dir_form(p) := "/" if p == "/"

dir_form(p) := trim_right(p, "/") if p != "/"
