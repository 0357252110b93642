package golden

import data.lib.users as u
import data.lib.groups as u

p := u
