package golden

names := [n | some u in input.users; n := u.name; n != other]
