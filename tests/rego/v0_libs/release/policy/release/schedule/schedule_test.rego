package policy.release.schedule

saturday := time.parse_rfc3339_ns("2024-03-02T12:00:00Z")

tuesday := time.parse_rfc3339_ns("2024-03-05T12:00:00Z")

test_weekend {
	deny["releases are not allowed on Saturday"] with data.config.when_ns as saturday with input as {}
}

test_weekend_emergency {
	count(deny) == 0 with data.config.when_ns as saturday with input as {"emergency": true}
}

test_weekday {
	count(deny) == 0 with data.config.when_ns as tuesday with input as {}
}

test_freeze {
	deny["release freeze q1 is in effect"] with data.config.when_ns as tuesday with input as {} with data.rule_data.freezes as [{"name": "q1", "start": "2024-03-01T00:00:00Z", "end": "2024-03-08T00:00:00Z"}]
}
