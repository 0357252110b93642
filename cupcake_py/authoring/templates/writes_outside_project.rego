# METADATA
# title: Ask before writing outside the project (created by `cupcake init`)
# description: >-
#   Asks when a tool call would write a path outside the allowed roots: the file, patch and MCP
#   tools' write arguments (input.tool_paths with access "write": Write, Edit, NotebookEdit,
#   apply_patch, …) and a Bash command's writes as the shell analysis resolved them
#   (input.shell.effects.writes: cp, sed -i, redirections, tee, …). The allowed roots are the
#   project and, when the rulebook enables the sandbox, its writable roots
#   (input.sandbox.writable: the rulebook's `sandbox.writable`, i.e. temp dirs and tool caches),
#   else /tmp. A write the analysis cannot resolve (input.shell.opaque of kind "writes") is asked
#   only where the sandbox does not apply: inside it such a write cannot land outside those
#   roots. To relax it, add prefixes to `exempt` below, list roots under `sandbox.writable`, or
#   delete this file.
# custom:
#   routing:
#     required_events: [PreToolUse]
package cupcake.policies.opencode.writes_outside_project

import rego.v1

root := trim_right(input.cwd, "/")

# Absolute prefixes where writes are never asked, besides the allowed roots (devices included).
exempt := ["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/"]

allowed_roots contains root

allowed_roots contains trim_right(r, "/") if {
	some r in object.get(input, ["sandbox", "writable"], ["/tmp"])
	is_string(r)
}

inside(path) if {
	some r in allowed_roots
	path == r
}

inside(path) if {
	some r in allowed_roots
	startswith(path, concat("", [r, "/"]))
}

inside(path) if {
	some prefix in exempt
	startswith(path, prefix)
}

reason(path) := concat("", ["writing ", path, " (outside the project ", root, " and the allowed roots) needs your approval"])

ask contains {"rule_id": "WRITE-OUTSIDE-PROJECT", "reason": reason(path), "severity": "HIGH"} if {
	some path in input.shell.effects.writes
	not inside(path)
}

ask contains {"rule_id": "WRITE-OUTSIDE-PROJECT", "reason": reason(t.path), "severity": "HIGH"} if {
	some t in input.tool_paths
	t.access == "write"
	not inside(t.path)
}

ask contains {
	"rule_id": "WRITE-UNKNOWN-TARGET",
	"reason": concat("", ["this command writes somewhere cupcake cannot determine statically (", o.reason, ") and the sandbox does not apply"]),
	"severity": "HIGH",
} if {
	some o in input.shell.opaque
	o.kind == "writes"
	not input.sandbox.applies
}
