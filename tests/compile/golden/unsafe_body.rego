package golden

allow if {
	input.user == "alice"
	y > 1
}
