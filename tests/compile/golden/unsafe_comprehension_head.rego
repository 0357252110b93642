package golden

names := {n | some u in input.users; u.active}
