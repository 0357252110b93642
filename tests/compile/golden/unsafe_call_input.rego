package golden

p if {
	startswith(path, "/etc")
}
