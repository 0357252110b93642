package rules.database.bool_true

good := {"resources": [{"type": "database_resource", "name": "ok", "config": {"logging_enabled": true}}]}

bad := {"resources": [{"type": "database_resource", "name": "bad", "config": {"logging_enabled": false}}, {"type": "other", "name": "x", "config": {"logging_enabled": false}}]}

test_bool_true_good {
	count(deny) == 0 with input as good
}

test_bool_true_bad {
	deny[info] with input as bad
	info.id == "CPK-DAT-001"
	info.message == "bad: logging is not enabled"
	info.severity == "CRITICAL"
}

test_bool_true_bad_once {
	count(deny) == 1 with input as bad
}
