package policy.release.attestation

import data.lib

default max_age_days = 30

max_age_days = n {
	n := lib.rule_data_value("max_age_days")
}

# Normalise an attestation with json.patch before checking it.
normalised(att) = out {
	ops := [op | op := patch_ops[_]; not op.skip]
	out := json.patch(att, ops)
}

patch_ops[{"op": "add", "path": "/annotations", "value": {}}] {
	true
}

patch_ops[{"op": "remove", "path": "/debug"}] {
	true
}

deny[msg] {
	att := input.attestations[_]
	n := normalised(att)
	not n.subject
	msg := "attestation has no subject"
}

deny[msg] {
	att := input.attestations[_]
	age := (input.now_ns - time.parse_rfc3339_ns(att.created)) / ((1000 * 1000 * 1000) * 86400)
	age > max_age_days
	msg := sprintf("attestation is %d days old (max %d)", [floor(age), max_age_days])
}

level = lvl {
	lvl := lib.pretty_level(count(deny))
}
