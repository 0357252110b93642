package golden

p if {
	some x
	x := input.a
}
