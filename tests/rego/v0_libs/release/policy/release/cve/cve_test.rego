package policy.release.cve

scan(vs) = {"scan": {"vulnerabilities": vs}}

test_clean {
	count(deny) == 0 with input as scan([{"severity": "LOW"}])
}

test_critical {
	d := deny with input as scan([{"severity": "Critical", "fixed_in": "1.1"}, {"severity": "HIGH"}])
	d == {{"code": "cve.critical", "msg": "found 1 critical vulnerabilities (limit 0)"}, {"code": "cve.high", "msg": "found 1 high vulnerabilities (limit 0)"}}
}

test_limits_from_rule_data {
	count(deny) == 0 with input as scan([{"severity": "HIGH"}, {"severity": "HIGH"}]) with data.rule_data.cve_limits as {"high": 2}
}

test_fixable_only {
	count(deny) == 0 with input as scan([{"severity": "CRITICAL"}]) with data.rule_data.cve_fixable_only as true
}

test_counts_and_warn {
	c := counts with input as scan([{"severity": "medium"}, {"severity": "MEDIUM"}])
	c == {"critical": 0, "high": 0, "medium": 2, "low": 0}
	warn[{"code": "cve.medium", "msg": "found 2 medium vulnerabilities"}] with input as scan([{"severity": "medium"}, {"severity": "MEDIUM"}])
}
