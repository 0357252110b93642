package golden

default allow := false

default allow := true

allow if input.admin
