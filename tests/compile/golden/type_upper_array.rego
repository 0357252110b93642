package golden

p := upper(["x"])
