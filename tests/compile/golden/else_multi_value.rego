package golden

deny contains "a" if {
	input.a
} else := "b"
