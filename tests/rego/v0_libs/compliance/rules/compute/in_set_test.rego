package rules.compute.in_set

good := {"resources": [{"type": "compute_resource", "name": "ok", "config": {"tls_version": "1.3"}}]}

bad := {"resources": [{"type": "compute_resource", "name": "bad", "config": {"tls_version": "1.0"}}, {"type": "other", "name": "x", "config": {"tls_version": "1.0"}}]}

test_in_set_good {
	count(deny) == 0 with input as good
}

test_in_set_bad {
	deny[info] with input as bad
	info.id == "CPK-COM-007"
	info.message == "bad: TLS version is too old"
	info.severity == "CRITICAL"
}

test_in_set_bad_once {
	count(deny) == 1 with input as bad
}
