package golden

p if data.lib.helpers.check(input.x)
