package rules.database.encrypted

good := {"resources": [{"type": "database_resource", "name": "ok", "config": {"volumes": [{"encrypted": true}]}}]}

bad := {"resources": [{"type": "database_resource", "name": "bad", "config": {"volumes": [{"encrypted": true}, {"encrypted": false}]}}, {"type": "other", "name": "x", "config": {"volumes": [{"encrypted": true}, {"encrypted": false}]}}]}

test_encrypted_good {
	count(deny) == 0 with input as good
}

test_encrypted_bad {
	deny[info] with input as bad
	info.id == "CPK-DAT-005"
	info.message == "bad: a volume is not encrypted"
	info.severity == "CRITICAL"
}

test_encrypted_bad_once {
	count(deny) == 1 with input as bad
}
