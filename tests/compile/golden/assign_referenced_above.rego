package golden

p if {
	x = input.a
	x := 2
}
