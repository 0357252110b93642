package golden

data := 1
