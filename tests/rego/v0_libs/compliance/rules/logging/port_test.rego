package rules.logging.port

good := {"resources": [{"type": "logging_resource", "name": "ok", "config": {"rules": [{"from_port": 443, "to_port": 443}]}}]}

bad := {"resources": [{"type": "logging_resource", "name": "bad", "config": {"rules": [{"from_port": 0, "to_port": 1024}]}}, {"type": "other", "name": "x", "config": {"rules": [{"from_port": 0, "to_port": 1024}]}}]}

test_port_good {
	count(deny) == 0 with input as good
}

test_port_bad {
	deny[info] with input as bad
	info.id == "CPK-LOG-009"
	info.message == "bad: SSH is reachable"
	info.severity == "MEDIUM"
}

test_port_bad_once {
	count(deny) == 1 with input as bad
}
