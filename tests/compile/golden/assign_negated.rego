package golden

p if {
	not x := input.a
}
