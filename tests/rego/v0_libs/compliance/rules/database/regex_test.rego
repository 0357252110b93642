package rules.database.regex

good := {"resources": [{"type": "database_resource", "name": "ok", "config": {"display_name": "prod-db-1"}}]}

bad := {"resources": [{"type": "database_resource", "name": "bad", "config": {"display_name": "Prod_DB"}}, {"type": "other", "name": "x", "config": {"display_name": "Prod_DB"}}]}

test_regex_good {
	count(deny) == 0 with input as good
}

test_regex_bad {
	deny[info] with input as bad
	info.id == "CPK-DAT-008"
	info.message == "bad: the display name breaks the naming rule"
	info.severity == "HIGH"
}

test_regex_bad_once {
	count(deny) == 1 with input as bad
}
