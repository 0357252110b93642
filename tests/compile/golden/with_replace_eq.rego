package golden

p if {
	input.x == 1 with eq as true
}
