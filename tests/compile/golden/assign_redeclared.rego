package golden

p if {
	x := 1
	x := 2
}
