package golden

p if {
	x > 1
	x < 10
	z == x
}
