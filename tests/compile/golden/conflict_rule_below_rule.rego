package golden

p := {"q": 1}

p.q.r := 2
