package lib.v1_helpers

test_port_open if {
	port_open({"from_port": 20, "to_port": 25}, 22)
	not port_open({"from_port": 80, "to_port": 80}, 22)
}

test_names if {
	names == {"a", "b"} with input as {"resources": [{"name": "a"}, {"name": "b"}]}
}
