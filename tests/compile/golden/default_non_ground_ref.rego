package golden

default limit := input.limit
