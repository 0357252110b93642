package golden

default allow
