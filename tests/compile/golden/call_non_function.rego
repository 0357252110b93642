package golden

threshold := 10

p if threshold(5)
