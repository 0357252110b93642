package golden

p if {
	some x
	input.a == 1
}
