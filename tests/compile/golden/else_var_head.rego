package golden

p[k] := 1 if {
	k := input.k
} else := 2
