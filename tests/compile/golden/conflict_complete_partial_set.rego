package golden

p := 1

p contains 2
