package rules.database.bool_false

good := {"resources": [{"type": "database_resource", "name": "ok", "config": {"public_access": false}}]}

bad := {"resources": [{"type": "database_resource", "name": "bad", "config": {"public_access": true}}, {"type": "other", "name": "x", "config": {"public_access": true}}]}

test_bool_false_good {
	count(deny) == 0 with input as good
}

test_bool_false_bad {
	deny[info] with input as bad
	info.id == "CPK-DAT-002"
	info.message == "bad: public access is enabled"
	info.severity == "LOW"
}

test_bool_false_bad_once {
	count(deny) == 1 with input as bad
}
