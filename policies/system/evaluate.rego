# METADATA
# scope: document
# title: cupcake-py decision aggregator
# description: >-
#   Collects every decision verb (halt, deny, block, ask, modify, add_context) defined by any
#   package under data.cupcake.policies, at any depth, into one decision set. The engine
#   evaluates this single entrypoint and synthesizes the final answer from it.
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
}

# Every value whose path ends in the verb name, flattened from sets into one array.
collect(verb) := [decision |
	walk(data.cupcake.policies, [path, value])
	path[count(path) - 1] == verb
	some decision in value
]
