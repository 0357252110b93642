# METADATA
# scope: package
# title: cupcake-py decision aggregator
# description: >-
#   Collects every decision verb (halt, deny, block, ask, modify, add_context) and the sandbox
#   profile extensions (`sandbox`, docs/sandbox.md) defined by any
#   package under data.cupcake.policies (or data.cupcake.global.policies), at any depth, into
#   one decision set. Each element is {"policy": <package>, "decision": <what the rule produced>},
#   so the engine can keep only the decisions of the policies routed to the event. The engine
#   evaluates this single entrypoint (cupcake/system/evaluate) and synthesizes the answer.
# custom:
#   entrypoint: true
#   routing:
#     required_events: []
#     required_tools: []
#     required_signals: []
package cupcake.system

import rego.v1

evaluate := {
	"halts": collect("halt"),
	"denials": collect("deny"),
	"blocks": collect("block"),
	"asks": collect("ask"),
	"modifications": collect("modify"),
	"add_context": collect("add_context"),
	"sandbox": collect("sandbox"),
}

collect(verb) := array.concat(project_decisions(verb), global_decisions(verb))

# Every value whose path ends in the verb name, flattened from sets into one array.
project_decisions(verb) := [{"policy": package_name(["cupcake", "policies"], path), "decision": decision} |
	walk(data.cupcake.policies, [path, value])
	path[count(path) - 1] == verb
	some decision in value
]

global_decisions(verb) := [{"policy": package_name(["cupcake", "global", "policies"], path), "decision": decision} |
	walk(data.cupcake.global.policies, [path, value])
	path[count(path) - 1] == verb
	some decision in value
]

package_name(root, path) := concat(".", array.concat(root, array.slice(path, 0, count(path) - 1)))
