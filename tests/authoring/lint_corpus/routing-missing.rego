# expect: routing-missing@2
package cupcake.policies.corpus.routing_missing

import rego.v1

deny contains {"rule_id": "CORPUS-1", "reason": "not allowed", "severity": "HIGH"} if {
	input.tool_name == "Bash"
}
