package golden

default limit := count(input.items)
