package lib.common

test_open_cidr {
	any_open_cidr(["10.0.0.0/8", "0.0.0.0/0"])
	not any_open_cidr(["10.0.0.0/8"])
}

test_all_encrypted {
	all_encrypted([{"encrypted": true}, {"encrypted": true}])
	not all_encrypted([{"encrypted": true}, {}])
	all_encrypted([])
}

test_at_least {
	at_least("HIGH", "MEDIUM")
	not at_least("LOW", "MEDIUM")
}

test_resources {
	count(resources("bucket")) == 2 with input as {"resources": [{"type": "bucket", "name": "a"}, {"type": "bucket", "name": "b"}, {"type": "vm", "name": "c"}]}
}
