# METADATA
# title: sensitive_data_protection — no reading of secrets (global rulebook)
# description: >-
#   Config (input.builtin_config.sensitive_data_protection): message, additional_patterns
#   (honoured; path patterns as in cupcake.system.paths, `~` expanded), home. Denies Read/Grep/
#   WebFetch/Edit on sensitive files (.env*, keys, credentials, cloud/SSH/package-manager
#   configs, databases), Glob/Grep patterns that hunt for them, Bash commands operating on them
#   or printing credentials (security find-generic-password, gpg --export-secret-keys, aws
#   configure get, gcloud auth print-access-token, …), and inline scripts naming them. Reasons
#   mask the file name.
# custom:
#   severity: HIGH
#   id: GLOBAL-BUILTIN-SENSITIVE-DATA
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Read", "Grep", "Glob", "WebFetch", "Edit", "Bash", "ApplyPatch", "Task"]
package cupcake.policies.builtins.sensitive_data_protection

import data.cupcake.system.commands
import data.cupcake.system.paths
import rego.v1

config := object.get(input, ["builtin_config", "sensitive_data_protection"], {})

message := object.get(config, "message", "Blocked access to potentially sensitive file")

extra := [paths.compile(p, object.get(config, "home", ""), input.cwd) |
	some p in object.get(config, "additional_patterns", [])
	is_string(p)
	p != ""
]

# Lower-cased path regexes of sensitive files.
sensitive_res := [
	`(^|/)\.env(\.[^/]*)?$`, `(^|/)[^/]*\.env$`, `(^|/)\.envrc$`,
	`\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg|kdbx)$`,
	`(^|/)id_(rsa|dsa|ecdsa|ed25519)$`, `/\.ssh/`, `/\.gnupg/`,
	`/\.aws/(credentials|config)$`, `/\.config/gcloud/`, `/\.azure/`, `(^|/)\.?kubeconfig$`, `/\.kube/config$`, `/\.docker/config\.json$`,
	`(^|/)\.(npmrc|pypirc|netrc|git-credentials|pgpass|my\.cnf)$`, `/\.gem/credentials$`, `/\.cargo/credentials(\.toml)?$`,
	`(^|/)[^/]*(secret|credential|password|passwd|api[_-]?key|private[_-]?key|token)s?[^/]*\.(json|ya?ml|toml|ini|cfg|conf|txt|env|xml|properties|csv)$`,
	`(^|/)[^/]*(secret|credential|password|passwd|api[_-]?key|token)s?$`,
	`\.(sqlite3?|db)$`,
]

# Example/template files document variable names, not values.
harmless(path) if regex.match(`\.(example|sample|template|dist|tmpl)$`, lower(path))

harmless(path) if endswith(lower(path), ".pub")

sensitive(path) if {
	not harmless(path)
	some re in sensitive_res
	regex.match(re, lower(path))
}

sensitive(path) if {
	some c in extra
	paths.matches(path, c)
}

mask(path) := m if {
	name := lower(regex.replace(path, `^.*/`, ""))
	masks := [x | some [needle, x] in [["key", "[REDACTED-KEY-FILE]"], ["secret", "[REDACTED-SECRET-FILE]"], ["credential", "[REDACTED-CREDENTIAL-FILE]"], ["token", "[REDACTED-TOKEN-FILE]"], [".env", "[REDACTED-ENV-FILE]"], ["password", "[REDACTED-PASSWORD-FILE]"]]; contains(name, needle)]
	m := first_or(masks, name)
}

first_or(masks, name) := masks[0] if count(masks) > 0

else := sprintf("[SENSITIVE-FILE: *.%s]", [ext]) if {
	parts := split(name, ".")
	count(parts) > 1
	ext := parts[count(parts) - 1]
} else := "[SENSITIVE-FILE]"

decision(detail) := {"rule_id": "GLOBAL-BUILTIN-SENSITIVE-DATA", "reason": sprintf("%s (sensitive_data_protection: %s)", [message, detail]), "severity": "HIGH"}

pre if input.hook_event_name == "PreToolUse"

deny contains decision(sprintf("%s on %s", [input.tool_name, mask(path)])) if {
	pre
	input.tool_name in {"Read", "Grep", "Edit", "WebFetch", "ApplyPatch"}
	some path in {p | p := input.resolved_file_path} | {p | some p in object.get(input, "affected_files", [])}
	sensitive(path)
}

deny contains decision("search pattern that could discover sensitive files") if {
	pre
	input.tool_name in {"Glob", "Grep"}
	some key in ["pattern", "include"]
	glob_key(key)
	regex.match(`(?i)secret|credential|token|password|\.env|\.key|\.pem|apikey|api_key|id_rsa|id_ed25519|\.sqlite|\.db\b|\.ssh|\.aws`, input.tool_input[key])
}

command := input.tool_input.command if {
	pre
	input.tool_name == "Bash"
	is_string(input.tool_input.command)
}

deny contains decision(sprintf("the command accesses %s", [mask(dir)])) if {
	command
	some dir in object.get(input, "affected_parent_directories", [])
	sensitive(dir)
}

deny contains decision("the command prints credentials") if {
	regex.match(`(?i)security\s+(find-generic-password|find-internet-password|dump-keychain)|gpg\s+(.*\s)?--export-secret|ssh-add\s+-L|aws\s+configure\s+(get|export-credentials)|aws\s+sts\s+get-session-token|gcloud\s+auth\s+(print-access-token|print-identity-token)|az\s+account\s+get-access-token|kubectl\s+config\s+view\s+.*--raw|gh\s+auth\s+token|printenv|(^|[;&|]\s*)env\s*($|[;&|])|git\s+config\s+(--get|--list|-l)\b.*(token|password|credential)`, command)
}

deny contains decision("inline script names a sensitive file") if {
	commands.inline_script(command)
	regex.match(`(?i)(^|[^a-z0-9_])\.env\b|id_rsa|id_ed25519|\.ssh/|\.aws/credentials|\.netrc|\.pem\b|\.git-credentials`, command)
}

glob_key("include") := true

glob_key("pattern") if input.tool_name == "Glob"
