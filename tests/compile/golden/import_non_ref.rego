package golden

import "data.lib"

p := 1
