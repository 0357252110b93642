package golden

p if {
	1 in input.xs with internal.member_2 as true
}
