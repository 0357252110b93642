# METADATA
# scope: package
# title: Path pattern matching shared by the builtin policies
# description: >-
#   A configured path pattern (protected_paths.paths, rulebook_security_guardrails.protected_paths,
#   system_protection.additional_paths, sensitive_data_protection.additional_patterns) is matched
#   against absolute, symlink-free paths (input.tool_paths, input.shell.effects), case-insensitively:
#     /abs/x or /abs/x/   the path itself and everything below it
#     rel/x or rel/x/     a `/rel/x` component sequence anywhere (a bare name `x` = any file or
#                         directory named x), and everything below it; a leading `./` is ignored
#     patterns with * ?   glob, component by component: `*` any characters within one component,
#                         `?`/`[…]` as in the shell; anchored at `/` when absolute, at any
#                         component when relative; a match also covers everything below it
#   `~` is expanded by cupcake_py/engine/builtin_policy_config.py before policies see a pattern.
#   Plain string builtins only (no regex): `compile` once per pattern, then `matches` per path.
#   `glob_overlaps` decides whether a shell glob of a command (input.shell.patterns, absolute)
#   can expand to the pattern's file, something below it or (for deletes) one of its ancestors:
#   `src/*.py` never overlaps `*.lock`; `sec*` overlaps `secrets/`.
package cupcake.system.paths

import rego.v1

# The pattern without `./` and trailing `/`, lower-cased.
normalize(pattern) := trim_right(trim_prefix(lower(pattern), "./"), "/")

is_glob(s) if contains(s, "*")

is_glob(s) if contains(s, "?")

is_glob(s) if contains(s, "[")

glob_flag(s) := true if is_glob(s)

else := false

# {pattern, norm, glob, absolute, parts, location, anchored}: parts are the pattern's components (the
# first is "" when absolute); location is where the pattern lives (relative ones below cwd),
# cut before the first wildcard component; anchored: parts below cwd for relative patterns.
compile(pattern, cwd) := c if {
	norm := normalize(pattern)
	norm != ""
	absolute := startswith(norm, "/")
	parts := split(norm, "/")
	c := {
		"pattern": pattern,
		"norm": norm,
		"glob": glob_flag(norm),
		"absolute": absolute,
		"parts": parts,
		"location": location_of(parts, absolute, cwd),
		"anchored": anchored(parts, absolute, cwd),
	}
}

location_of(parts, true, _) := literal_prefix(parts)

location_of(parts, false, cwd) := trim_right(concat("/", [trim_right(lower(cwd), "/"), literal_prefix(parts)]), "/")

anchored(parts, true, _) := parts

anchored(parts, false, cwd) := array.concat(split(trim_right(lower(cwd), "/"), "/"), parts)

literal_prefix(parts) := concat("/", array.slice(parts, 0, first_glob(parts)))

first_glob(parts) := min([i | some i, p in parts; is_glob(p)]) if {
	some p in parts
	is_glob(p)
} else := count(parts)

# --------------------------------------------------------------------------- matching

# `path` (absolute) is the compiled pattern's file/directory or lies below it.
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

matches(path, c) if {
	c.glob
	comps := split(lower(path), "/")
	some j in starts(c, count(comps))
	every i, g in c.parts {
		comp_match(g, comps[j + i])
	}
}

# Where the pattern's first component may sit among `n` path components.
starts(c, n) := [0] if {
	c.absolute
	n >= count(c.parts)
}

starts(c, n) := numbers.range(1, n - count(c.parts)) if {
	not c.absolute
	n > count(c.parts)
}

within(path, dir) if path == dir

within(path, dir) if startswith(path, concat("", [dir, "/"]))

within(_, "/") := true

# `dir` is the pattern's location or one of its ancestors (a recursive delete, move or mode
# change of `dir` reaches the protected path).
ancestor_of(dir, c) if within(c.location, trim_right(lower(dir), "/"))

ancestor_of("/", _) := true

# ---------------------------------------------------------------------- component globs

# One path component against one glob component.
comp_match(g, s) if {
	not is_glob(g)
	g == s
}

comp_match(g, s) if {
	contains(g, "*")
	not contains(g, "?")
	not contains(g, "[")
	star_match(split(g, "*"), s)
}

comp_match(g, s) if {
	not star_only(g)
	is_glob(g)
	glob.match(g, [], s)
}

star_only(g) if {
	not contains(g, "?")
	not contains(g, "[")
}

star_match(pieces, s) if {
	startswith(s, pieces[0])
	endswith(s, pieces[count(pieces) - 1])
	count(s) >= sum([count(p) | some p in pieces])
	every p in pieces {
		contains(s, p)
	}
}

# A shell glob component (leading `*`/`?` never match a leading dot) against a literal one.
shell_comp_match(g, s) if {
	startswith(s, ".")
	not startswith(g, "*")
	not startswith(g, "?")
	not startswith(g, "[")
	comp_match(g, s)
}

shell_comp_match(g, s) if {
	not startswith(s, ".")
	comp_match(g, s)
}

# ---------------------------------------------------------------------- glob overlap

# Two components can name the same entry: `a` a component of a command's shell glob, `b` one
# of the protected pattern (or of its location).
pair_ok(a, b) if {
	not is_glob(a)
	not is_glob(b)
	a == b
}

pair_ok(a, b) if {
	is_glob(a)
	not is_glob(b)
	shell_comp_match(a, b)
}

pair_ok(a, b) if {
	not is_glob(a)
	is_glob(b)
	comp_match(b, a)
}

pair_ok(a, b) if {
	is_glob(a)
	is_glob(b)
	heads_ok(lit_head(a), lit_head(b))
	tails_ok(lit_tail(a), lit_tail(b))
}

heads_ok(x, y) if startswith(x, y)

heads_ok(x, y) if startswith(y, x)

tails_ok(x, y) if endswith(x, y)

tails_ok(x, y) if endswith(y, x)

lit_head(g) := split(split(split(g, "*")[0], "?")[0], "[")[0]

lit_tail(g) := t if {
	pieces := split(g, "*")
	last := pieces[count(pieces) - 1]
	not contains(last, "?")
	not contains(last, "[")
	t := last
} else := ""

# The command glob `gpath` (absolute) can expand to the protected pattern's file, below it or,
# when it is shorter, to one of its ancestors. Relative patterns are anchored at cwd here:
# deeper matches exist on disk and so are in the expanded effects already.
glob_overlaps(gpath, c) if {
	gs := split(lower(gpath), "/")
	not "**" in gs
	k := min([count(gs), count(c.anchored)])
	every i in numbers.range(0, k - 1) {
		pair_ok(gs[i], c.anchored[i])
	}
}

# `dir/**/name`: the part before `**` is a prefix as above; unless it already reaches into the
# protected path, the last component must be able to name the protected path's last component
# (files below a protected directory that match exist on disk, so they are in the expanded
# effects already).
glob_overlaps(gpath, c) if {
	gs := split(lower(gpath), "/")
	some idx, g in gs
	g == "**"
	k := min([idx, count(c.anchored)])
	every i in numbers.range(0, k - 1) {
		pair_ok(gs[i], c.anchored[i])
	}
	below_or_named(gs, idx, c.anchored)
}

# The part before `**` already reaches into the protected path (`.cup*/**/*.rego`) …
below_or_named(_, idx, anchored) if idx >= count(anchored)

# … or the last component can name the protected path's last component (`**/*.lock`).
below_or_named(gs, idx, anchored) if {
	idx < count(anchored)
	pair_ok(gs[count(gs) - 1], anchored[count(anchored) - 1])
}
