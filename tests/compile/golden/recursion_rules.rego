package golden

p if q

q if p
