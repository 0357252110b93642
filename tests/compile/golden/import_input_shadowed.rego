package golden

import input
import data.config.input

p := input.x
