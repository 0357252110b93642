package rules.storage.min_number

good := {"resources": [{"type": "storage_resource", "name": "ok", "config": {"retention_days": 365}}]}

bad := {"resources": [{"type": "storage_resource", "name": "bad", "config": {"retention_days": 7}}, {"type": "other", "name": "x", "config": {"retention_days": 7}}]}

test_min_number_good {
	count(deny) == 0 with input as good
}

test_min_number_bad {
	deny[info] with input as bad
	info.id == "CPK-STO-006"
	info.message == "bad: retention is shorter than 90 days"
	info.severity == "MEDIUM"
}

test_min_number_bad_once {
	count(deny) == 1 with input as bad
}
