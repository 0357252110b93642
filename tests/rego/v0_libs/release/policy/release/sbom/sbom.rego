package policy.release.sbom

import data.lib

components = input.sbom.components

default disallowed_list = ["AGPL-3.0", "SSPL-1.0"]

disallowed_list = data.rule_data.disallowed_licenses

disallowed_licenses = lib.to_set(disallowed_list)

license_ids(c) = {id | id := c.licenses[_].license.id}

deny[msg] {
	c := components[_]
	bad := license_ids(c) & disallowed_licenses
	count(bad) > 0
	msg := sprintf("%s@%s has disallowed license(s) %v", [c.name, c.version, bad])
}

deny[msg] {
	not input.sbom
	msg := "no SBOM attached"
}

purls := {p | p := components[_].purl}

deny[msg] {
	c := components[_]
	not c.purl
	msg := sprintf("component %s has no purl", [c.name])
}

summary := {"components": count(components), "types": {t: n | t := components[_].type; n := count([1 | components[i].type == t])}}
