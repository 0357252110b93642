package golden

f := 1

f(x) := x
