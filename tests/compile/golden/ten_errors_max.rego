package golden

p1 if a1
p2 if a2
p3 if a3
p4 if a4
p5 if a5
p6 if a6
p7 if a7
p8 if a8
p9 if a9
p10 if a10
p11 if a11
p12 if a12
