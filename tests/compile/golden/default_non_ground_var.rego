package golden

default limit := n
