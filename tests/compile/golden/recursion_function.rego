package golden

fact(n) := 1 if n <= 1

fact(n) := n * fact(n - 1) if n > 1
