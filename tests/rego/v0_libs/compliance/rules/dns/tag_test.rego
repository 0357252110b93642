package rules.dns.tag

good := {"resources": [{"type": "dns_resource", "name": "ok", "config": {"tags": {"owner": "team"}}}]}

bad := {"resources": [{"type": "dns_resource", "name": "bad", "config": {"tags": {}}}, {"type": "other", "name": "x", "config": {"tags": {}}}]}

test_tag_good {
	count(deny) == 0 with input as good
}

test_tag_bad {
	deny[info] with input as bad
	info.id == "CPK-DNS-003"
	info.message == "bad: the owner tag is missing"
	info.severity == "HIGH"
}

test_tag_bad_once {
	count(deny) == 1 with input as bad
}
