package lib

test_defaults {
	rule_data.defaults.max_age_days == 30
	rule_data_value("max_age_days") == 30
	rule_data_value("max_age_days") == 7 with data.rule_data as {"max_age_days": 7}
}

test_quoted {
	quoted_values_string({"b", "a"}) == "\"a\", \"b\""
}

test_pretty_level {
	[pretty_level(5), pretty_level(3), pretty_level(2), pretty_level(1), pretty_level(0)] == ["fatal", "high", "medium", "low", "none"]
}

test_result_helper {
	result_helper({"code": "x.y", "msg": "bad %s", "effective_on": "2022"}, ["thing"]) == {"code": "x.y", "msg": "bad thing", "effective_on": "2022"}
}
