package golden

p if {
	nosuch(input.x)
	z > 1
}
