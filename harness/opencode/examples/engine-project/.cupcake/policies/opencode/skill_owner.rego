# METADATA
# title: Skill use by team (auto-discovered signal `owner` from .cupcake/signals/owner.sh)
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Skill"]
#     required_signals: ["owner"]
package cupcake.policies.opencode.skill_owner

import rego.v1

add_context contains sprintf("Skills run on behalf of team %s.", [input.signals.owner.team]) if {
	input.tool_input.name != "deploy"
}
