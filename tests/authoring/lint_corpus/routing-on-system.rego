# expect: routing-on-system@4
# METADATA
# custom:
#   routing:
#     required_events: [PreToolUse]
package cupcake.system.corpus_extra

import rego.v1

is_shell if input.tool_name == "Bash"
