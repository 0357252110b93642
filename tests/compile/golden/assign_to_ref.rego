package golden

p if {
	input.user := "alice"
}
