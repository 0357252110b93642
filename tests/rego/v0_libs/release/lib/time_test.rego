package lib.time

test_effective_default {
	effective_on == "2022-01-01T00:00:00Z"
}

test_effective_data {
	effective_on == "2030-01-01T00:00:00Z" with data.config.effective_on as "2030-01-01T00:00:00Z"
}

test_future_rule_not_effective {
	not is_effective({"effective_on": "2200-01-01T00:00:00Z"}) with data.config.when_ns as 0
}

test_past_rule_effective {
	is_effective({"effective_on": "2000-01-01T00:00:00Z"})
}

test_rule_without_date {
	is_effective({}) with data.config.when_ns as time.parse_rfc3339_ns("2023-01-01T00:00:00Z")
}
