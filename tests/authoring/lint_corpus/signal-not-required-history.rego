# expect: signal-not-required@12
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.signal_not_required_history

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "too many calls", "severity": "HIGH"} if {
	input.history.session.windows["1m"].calls > 30
}
