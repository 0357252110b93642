package golden

f(x) := y if {
	x := 1
	y := x
}
