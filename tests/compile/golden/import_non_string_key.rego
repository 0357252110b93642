package golden

import data.lib[0]

p := 1
