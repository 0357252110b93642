package golden

f(x) := x

f(x, y) := x + y
