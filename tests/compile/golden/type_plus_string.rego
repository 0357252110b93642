package golden

p := x if {
	x := "a" + 1
}
