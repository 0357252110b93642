# METADATA
# title: session start - tell the model that cupcake guards this project
# custom:
#   routing:
#     required_events: ["SessionStart"]
package cupcake.policies.example.session

import rego.v1

add_context contains "This project uses cupcake: policies in .cupcake/ decide what tools may do." if {
	input.hook_event_name == "SessionStart"
}
