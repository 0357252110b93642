package policy.release.cve

import data.lib

severities := ["critical", "high", "medium", "low"]

counts[sev] = n {
	sev := severities[_]
	n := count([v | v := input.scan.vulnerabilities[_]; lower(v.severity) == sev; not fixable_only_skip(v)])
}

fixable_only_skip(v) {
	lib.rule_data_value("cve_fixable_only") == true
	not v.fixed_in
}

default configured_limits = {}

configured_limits = data.rule_data.cve_limits

limits = object.union({"critical": 0, "high": 0}, configured_limits)

deny[result] {
	some sev
	limit := limits[sev]
	counts[sev] > limit
	result := {"code": sprintf("cve.%s", [sev]), "msg": sprintf("found %d %s vulnerabilities (limit %d)", [counts[sev], sev, limit])}
}

warn[result] {
	counts.medium > 0
	result := {"code": "cve.medium", "msg": sprintf("found %d medium vulnerabilities", [counts.medium])}
}
