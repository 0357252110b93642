# METADATA
# title: Ask before deleting anything outside the project (created by `cupcake init`)
# description: >-
#   Asks when a tool call would delete a path outside the project directory: a Bash command's
#   deletes as the shell analysis resolved them (input.shell.effects.deletes: rm, rmdir, mv's
#   source, find -delete, …), a delete it could not resolve (input.shell.opaque with kind
#   "deletes", e.g. `rm -rf "$(cat list)"`; not asked where cupcake's sandbox applies: there it
#   cannot reach outside the writable roots), and delete arguments of any other tool
#   (input.tool_paths with access "delete", MCP tools included). Deletes inside the project and
#   below /tmp are not asked. To relax it, edit the `exempt` prefixes below or delete this file.
# custom:
#   routing:
#     required_events: [PreToolUse]
package cupcake.policies.opencode.deletes_outside_project

import rego.v1

root := trim_right(input.cwd, "/")

# Absolute directory prefixes where deletes are never asked (add your own build or scratch dirs).
exempt := ["/tmp/"]

outside(path) if {
	path != root
	not startswith(path, concat("", [root, "/"]))
	not exempt_path(path)
}

exempt_path(path) if {
	some prefix in exempt
	startswith(path, prefix)
}

ask contains {
	"rule_id": "DELETE-OUTSIDE-PROJECT",
	"reason": concat("", ["deleting ", path, " (outside the project ", root, ") needs your approval"]),
	"severity": "HIGH",
} if {
	some path in input.shell.effects.deletes
	outside(path)
}

ask contains {
	"rule_id": "DELETE-OUTSIDE-PROJECT",
	"reason": concat("", ["deleting ", t.path, " (outside the project ", root, ") needs your approval"]),
	"severity": "HIGH",
} if {
	some t in input.tool_paths
	t.access == "delete"
	outside(t.path)
}

ask contains {
	"rule_id": "DELETE-UNKNOWN-TARGET",
	"reason": concat("", ["this command deletes something cupcake cannot determine statically (", o.reason, ")"]),
	"severity": "HIGH",
} if {
	some o in input.shell.opaque
	o.kind == "deletes"
	not input.sandbox.applies # inside cupcake's sandbox only the project, temp dirs and tool caches are writable
}
