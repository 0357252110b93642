package golden

double(x) := x * 2

p := y if {
	y := double(1, 2)
}
