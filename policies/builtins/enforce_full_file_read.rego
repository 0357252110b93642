# METADATA
# title: enforce_full_file_read — read small files completely
# description: >-
#   Config (input.builtin_config.enforce_full_file_read): max_lines (default 2000), message.
#   Denies a `read` with offset or limit when the file (signal file.line_count) has fewer than
#   max_lines lines. A read whose limit covers the whole file from the start is a full read; a
#   missing file is left to the tool.
# custom:
#   severity: MEDIUM
#   id: BUILTIN-ENFORCE-FULL-READ
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Read"]
#     required_signals: ["file.line_count", "file.exists"]
package cupcake.policies.builtins.enforce_full_file_read

import rego.v1

config := object.get(input, ["builtin_config", "enforce_full_file_read"], {})

max_lines := object.get(config, "max_lines", 2000)

message := object.get(config, "message", sprintf("Please read the entire file first (files under %d lines must be read completely)", [max_lines]))

partial if {
	input.tool_input.offset != null
	input.tool_input.offset > 0
}

partial if {
	input.tool_input.limit != null
	not covers_file
}

covers_file if {
	is_number(lines)
	input.tool_input.limit >= lines
}

lines := input.signals["file.line_count"]

deny contains {
	"rule_id": "BUILTIN-ENFORCE-FULL-READ",
	"reason": sprintf("%s (enforce_full_file_read: %s has %d lines, under max_lines %d; offset/limit given)", [message, input.resolved_file_path, lines, max_lines]),
	"severity": "MEDIUM",
} if {
	input.hook_event_name == "PreToolUse"
	input.tool_name == "Read"
	partial
	is_number(lines)
	lines < max_lines
}
