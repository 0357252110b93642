package golden

p if {
	startswith(input.path, "/", "x", true)
}
