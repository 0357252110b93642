package golden

p if {
	input := {"user": "alice"}
	input.user == "alice"
}
