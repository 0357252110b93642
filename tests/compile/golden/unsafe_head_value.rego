package golden

limit := n if {
	input.user == "alice"
}
