package golden

p if {
	count(1) > 0
}
