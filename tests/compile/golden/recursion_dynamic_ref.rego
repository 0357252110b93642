package golden

p := data.golden[input.key]
