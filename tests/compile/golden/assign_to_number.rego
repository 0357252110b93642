package golden

p if {
	1 := input.a
}
