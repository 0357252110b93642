package golden

allow if {
	input.user == "alice"
	not blocked[name]
}

blocked contains "bob"
