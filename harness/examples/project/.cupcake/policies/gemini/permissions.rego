# METADATA
# title: permission requests - never let a human approve piping a download into a shell
# custom:
#   routing:
#     required_events: ["PermissionRequest"]
#     required_tools: ["Bash"]
package cupcake.policies.example.permissions

import rego.v1

halt contains {
	"rule_id": "EXAMPLE-PERMISSION-CURL-SH",
	"severity": "HIGH",
	"reason": "piping a download into a shell is never approved, not even by hand",
} if {
	regex.match(`(curl|wget)[^|]*\|\s*(ba|z)?sh\b`, input.tool_input.command)
}
