package rules.network.not_empty

good := {"resources": [{"type": "network_resource", "name": "ok", "config": {"admins": ["a"]}}]}

bad := {"resources": [{"type": "network_resource", "name": "bad", "config": {}}, {"type": "other", "name": "x", "config": {}}]}

test_not_empty_good {
	count(deny) == 0 with input as good
}

test_not_empty_bad {
	deny[info] with input as bad
	info.id == "CPK-NET-010"
	info.message == "bad: no administrators are assigned"
	info.severity == "CRITICAL"
}

test_not_empty_bad_once {
	count(deny) == 1 with input as bad
}
