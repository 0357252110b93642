# expect: recursion@14
# expect: recursion@16
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
#     required_tools: [Bash]
package cupcake.policies.corpus.recursion

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if a

a if b

b if a
