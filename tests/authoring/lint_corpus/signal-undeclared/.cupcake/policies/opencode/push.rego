# expect: signal-undeclared@7
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
#     required_signals: [brnach]
package cupcake.policies.corpus.signal_undeclared

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_input.command == "git push"
	input.signals.brnach == "main"
}
