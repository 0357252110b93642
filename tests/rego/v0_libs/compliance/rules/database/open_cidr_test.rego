package rules.database.open_cidr

good := {"resources": [{"type": "database_resource", "name": "ok", "config": {"ingress_cidrs": ["10.0.0.0/8"]}}]}

bad := {"resources": [{"type": "database_resource", "name": "bad", "config": {"ingress_cidrs": ["0.0.0.0/0"]}}, {"type": "other", "name": "x", "config": {"ingress_cidrs": ["0.0.0.0/0"]}}]}

test_open_cidr_good {
	count(deny) == 0 with input as good
}

test_open_cidr_bad {
	deny[info] with input as bad
	info.id == "CPK-DAT-004"
	info.message == "bad: ingress is open to the internet"
	info.severity == "HIGH"
}

test_open_cidr_bad_once {
	count(deny) == 1 with input as bad
}
