package policy.release.attestation

now := time.parse_rfc3339_ns("2024-03-01T00:00:00Z")

test_normalised {
	normalised({"subject": "x", "debug": true}) == {"subject": "x", "annotations": {}}
}

test_no_subject {
	deny["attestation has no subject"] with input as {"attestations": [{"debug": 1, "created": "2024-02-28T00:00:00Z"}], "now_ns": now}
}

test_too_old {
	deny["attestation is 60 days old (max 30)"] with input as {"attestations": [{"subject": "s", "debug": 1, "created": "2024-01-01T00:00:00Z"}], "now_ns": now}
}

test_rule_data_max_age {
	count(deny) == 0 with input as {"attestations": [{"subject": "s", "debug": 1, "created": "2024-01-01T00:00:00Z"}], "now_ns": now} with data.rule_data.max_age_days as 90
}

test_level {
	level == "none" with input as {"attestations": [], "now_ns": now}
	level == "medium" with input as {"attestations": [{"debug": 1, "created": "2020-01-01T00:00:00Z"}], "now_ns": now}
}
