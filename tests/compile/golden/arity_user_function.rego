package golden

double(x) := x * 2

p if {
	double(1, 2, 3)
}
