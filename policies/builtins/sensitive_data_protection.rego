# METADATA
# title: sensitive_data_protection — no reading of secrets (global rulebook)
# description: >-
#   Config (input.builtin_config.sensitive_data_protection): message, additional_patterns (path
#   patterns as in cupcake.system.paths, `~` expanded), on_uncertain (ask|deny|allow, default
#   ask). Denies every way of touching a sensitive file (.env*, keys, credentials, cloud/SSH/
#   package-manager configs, databases other than the project's own queried by sqlite3, anything
#   below a `secrets/` directory): any tool path
#   (Read, Write, Edit, patches, MCP and unknown tools), Bash effects (cat, cp, tar, base64,
#   redirections, `source`, links), recursive readers (grep -r, rg, tar, zip, cp -r, rsync)
#   over a directory holding one (input.secrets_below), `git show REV:path`, commands printing git
#   history when the repository tracks or has tracked a sensitive path (input.git_history: a
#   cached git signal; unknown history answers on_uncertain), environment dumps
#   (`env`, `printenv`, `export -p`, `declare -x`, `set`), credential-printing commands, and
#   Glob/Grep patterns hunting for secrets, and content searches (Grep, MCP grep tools) over a
#   directory holding a secret their filter keeps (input.search_reads). Opaque reads (inline interpreter code, `$(…)`
#   operands, commands computed at run time) answer `on_uncertain`. Reasons mask the file name.
# custom:
#   severity: HIGH
#   id: GLOBAL-BUILTIN-SENSITIVE-DATA
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["*"]
package cupcake.policies.builtins.sensitive_data_protection

import data.cupcake.system.effects
import data.cupcake.system.paths
import data.cupcake.system.tables
import rego.v1

config := object.get(input, ["builtin_config", "sensitive_data_protection"], {})

message := object.get(config, "message", "Blocked access to potentially sensitive file")

on_uncertain := object.get(config, "on_uncertain", "ask")

extra := [paths.compile(p, input.cwd) |
	some p in object.get(config, "additional_patterns", [])
	is_string(p)
	p != ""
]

# ------------------------------------------------------------------------------ what is sensitive

ext(name) := parts[count(parts) - 1] if {
	parts := split(name, ".")
	count(parts) > 1
} else := ""

harmless(name) if ext(name) in tables.sdp_harmless_exts

# credentials.example.json, secrets.sample.yaml, .env.template.local …
harmless(name) if {
	some e in tables.sdp_harmless_exts
	e != "pub"
	contains(name, concat("", [".", e, "."]))
}

sensitive_name(name) if name == ".env"

sensitive_name(name) if startswith(name, ".env.")

sensitive_name(name) if endswith(name, ".env")

sensitive_name(name) if name in tables.sdp_secret_names

# id_rsa_work, id_ed25519_github, … (their .pub halves are harmless)
sensitive_name(name) if {
	some k in ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"]
	startswith(name, k)
}

sensitive_name(name) if ext(name) in tables.sdp_key_exts

sensitive_name(name) if {
	some w in tables.sdp_secret_words
	contains(name, w)
	word_file(name, w)
}

word_file(name, _) if ext(name) in tables.sdp_text_exts

word_file(name, w) if endswith(name, w)

word_file(name, w) if endswith(name, concat("", [w, "s"]))

sensitive(path) if {
	name := lower(effects.basename(path))
	not harmless(name)
	sensitive_name(name)
}

sensitive(path) if {
	lp := concat("", [lower(path), "/"])
	some d in tables.sdp_secret_dirs
	contains(lp, d)
	not harmless(lower(effects.basename(path)))
}

sensitive(path) if {
	some c in extra
	paths.matches(path, c)
}

mask(path) := m if {
	name := lower(effects.basename(path))
	masks := [x | some [needle, x] in tables.sdp_mask_words; contains(lower(path), needle)]
	m := first_or(masks, name)
}

first_or(masks, name) := masks[0] if count(masks) > 0

else := concat("", ["[SENSITIVE-FILE: *.", ext(name), "]"]) if ext(name) != ""

else := "[SENSITIVE-FILE]"

decision(detail) := {
	"rule_id": "GLOBAL-BUILTIN-SENSITIVE-DATA",
	"reason": concat("", [message, " (sensitive_data_protection: ", detail, ")"]),
	"severity": "HIGH",
}

# ------------------------------------------------------------------------------ paths touched

deny contains decision(concat("", [input.tool_name, " ", t.access, " of ", mask(t.path)])) if {
	some t in effects.targets
	sensitive(t.path)
	not project_database_query(t)
}

# `sqlite3 app.db "select 1"`: the project's own database opened by its client, in a line that runs
# nothing but database clients (what the SQL reads or writes besides it is an effect of its own,
# cupcake_py/shell/carriers.py); `cat app.db` or `cp app.db /tmp` stay denied.
project_database_query(t) if {
	t.via == "shell"
	t.access in {"read", "write"}
	ext(lower(effects.basename(t.path))) in tables.sdp_database_exts
	startswith(t.path, concat("", [input.cwd, "/"]))
	not secret_dir_path(t.path)
	count(effects.commands) > 0
	every c in effects.commands {
		c.name in tables.sdp_database_clients
	}
}

secret_dir_path(path) if {
	lp := lower(path)
	some d in tables.sdp_secret_dirs
	contains(lp, d)
}

# grep -r / rg / tar / zip / cp -r over a directory that holds a secret. (find lists names only:
# what `find -exec CMD {}` reads is CMD's effects, the files find selects when the analysis can
# list them, opaque otherwise.)
recursive(c) if c.name in {"rg", "ag", "ack", "tar", "zip", "7z", "rsync", "cpio", "ugrep", "sift", "pt"}

recursive(c) if {
	c.name in {"grep", "egrep", "fgrep", "zgrep", "cp", "scp"}
	some a in effects.args(c)
	recursive_flag(c.name, a)
}

recursive_flag(_, a) if a in {"-r", "-R", "--recursive", "-a", "--archive", "-rf", "-Rf", "-fr", "-rn", "-Rn", "-ri", "-Ri", "-rl", "-Rl", "--dereference-recursive"}

recursive_flag(name, a) if {
	name != "find"
	startswith(a, "-")
	not startswith(a, "--")
	some f in ["r", "R"]
	contains(a, f)
}

deny contains decision(concat("", ["`", c.name, "` reads a directory holding ", mask(f)])) if {
	some c in effects.commands
	recursive(c)
	some dir, files in object.get(input, "secrets_below", {})
	reads_dir(c, dir)
	some f in files
	sensitive(f)
}

reads_dir(_, dir) if {
	some t in effects.reads
	t.path == dir
}

reads_dir(c, dir) if {
	c.name in tables.sdp_cwd_searchers
	c.cwd == dir
	count([a | some a in effects.args(c); not startswith(a, "-")]) <= 1
}

# Printing history (git log -p, show, diff against a revision, format-patch, grep on revisions,
# cat-file, archive, bundle …) prints every file ever tracked: input.git_history lists the
# secret-looking paths the repository tracks or has tracked (a cached git signal).
deny contains decision(concat("", ["git ", g.subcommand, " prints the repository's history, which holds ", mask(p), " (tracked now or in an earlier commit)"])) if {
	some g in effects.git
	g.history == true
	some repo in object.get(input, ["git_history", "repositories"], [])
	repo.work_tree == g.work_tree
	some p in repo.paths
	in_history_scope(g, p)
	sensitive(p)
}

# `git log -p -- src`, `git show REV:path`, `git blame FILE` print only those paths' history.
in_history_scope(g, _) if count(object.get(g, "history_paths", [])) == 0

in_history_scope(g, p) if {
	some h in g.history_paths
	p == h
}

in_history_scope(g, p) if {
	some h in g.history_paths
	startswith(p, concat("", [trim_right(h, "/"), "/"]))
}

uncertain contains concat("", ["git ", g.subcommand, " prints the repository's history, and which files it ever tracked is unknown (", repo.reason, ")"]) if {
	some g in effects.git
	g.history == true
	some repo in object.get(input, ["git_history", "repositories"], [])
	repo.complete != true
}

# git show REV:path, git cat-file -p REV:path
deny contains decision(concat("", ["git ", g.subcommand, " prints ", mask(p)])) if {
	some g in effects.git
	g.subcommand in {"show", "cat-file", "grep", "archive", "diff", "log", "blame"}
	some a in g.args
	is_string(a)
	parts := split(a, ":")
	count(parts) > 1
	p := concat(":", array.slice(parts, 1, count(parts)))
	p != ""
	sensitive(concat("/", [input.cwd, p]))
}

# git diff/log/blame/show of a secret file given as a path (tracked or `--no-index`).
deny contains decision(concat("", ["git ", g.subcommand, " prints ", mask(p)])) if {
	some g in effects.git
	g.subcommand in {"show", "diff", "log", "blame", "grep", "annotate", "format-patch", "archive"}
	some a in g.args
	is_string(a)
	not startswith(a, "-")
	p := concat("/", [object.get(effects.commands[g.command], "cwd", input.cwd), a])
	sensitive(p)
}

deny contains decision("the command dumps the environment, which holds secrets") if {
	"env_dump" in effects.facts
}

deny contains decision(concat("", ["`", c.name, "` prints credentials"])) if {
	some c in effects.commands
	some needed in tables.sdp_credential_commands[c.name]
	words := {a | some a in effects.args(c)}
	every w in needed {
		w in words
	}
	not env_runs_program(c)
}

# `env FOO=1 prog` runs a program (peeled by the analysis); bare `env` prints everything.
env_runs_program(c) if {
	c.name == "env"
	some a in effects.args(c)
	not contains(a, "=")
	not startswith(a, "-")
}

deny contains decision(concat("", ["git config prints ", w])) if {
	some g in effects.git
	g.subcommand == "config"
	some a in g.args
	is_string(a)
	some w in ["token", "password", "credential"]
	contains(lower(a), w)
}

# ------------------------------------------------------------------------------ search tools

deny contains decision("search pattern that could discover sensitive files") if {
	effects.pre
	input.tool_name in {"Glob", "Grep"}
	some key in ["pattern", "include"]
	glob_key(key)
	raw := input.tool_input[key]
	is_string(raw)
	text := lower(raw)
	some h in tables.sdp_hunting
	contains(text, h)
}

glob_key("include") := true

glob_key("pattern") if input.tool_name == "Glob"

# A content search over a directory (the agents' Grep, MCP grep tools) reads every file below it
# that its include filter keeps and git does not ignore: input.search_reads lists the
# secret-looking ones. Listings (Glob, List, a directory Read) show names only.
deny contains decision(concat("", [input.tool_name, " searches the contents of ", mask(f)])) if {
	effects.pre
	input.search_reads.kind == "content"
	some _, files in input.search_reads.dirs
	some f in files
	sensitive(f)
}

# MCP search tools (`filesystem_search_files {path, pattern}`) hunting for secrets by name.
deny contains decision("search pattern that could discover sensitive files") if {
	effects.pre
	not input.tool_name in {"Glob", "Grep", "Bash"}
	some w in ["search", "find", "glob", "list"]
	contains(lower(input.tool_name), w)
	some key in ["pattern", "glob", "include", "name", "filename"]
	raw := input.tool_input[key]
	is_string(raw)
	text := lower(raw)
	some h in tables.sdp_hunting
	contains(text, h)
}

# ------------------------------------------------------------------------------ uncertainty

uncertain contains r if some r in effects.uncertain_read

uncertain contains concat("", ["`", u.command, "` names ", mask(u.path), "; what it does with it is unknown"]) if {
	some u in effects.unaccounted
	sensitive(u.path)
}

deny contains decision(concat("", ["cannot tell statically whether the command reads a secret (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "deny"
	count(uncertain) > 0
}

ask contains decision(concat("", ["cannot tell statically whether the command reads a secret (", effects.first_reason(uncertain), ")"])) if {
	on_uncertain == "ask"
	not effects.floor_covers("secrets")
	count(uncertain) > 0
}
