package golden

import lib.helpers

p := 1
