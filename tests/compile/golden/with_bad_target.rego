package golden

p if input.x

q if {
	p with config as {"x": true}
}
