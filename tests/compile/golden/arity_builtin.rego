package golden

p if {
	count(input.tool_input.command, 2) > 1
}
