package policy.release.sbom

comp(name, lic, t) = {"name": name, "version": "1", "type": t, "purl": sprintf("pkg:x/%s@1", [name]), "licenses": [{"license": {"id": lic}}]}

test_clean {
	count(deny) == 0 with input as {"sbom": {"components": [comp("a", "MIT", "library")]}}
}

test_agpl {
	deny["b@1 has disallowed license(s) {\"AGPL-3.0\"}"] with input as {"sbom": {"components": [comp("b", "AGPL-3.0", "library")]}}
}

test_no_sbom {
	deny["no SBOM attached"] with input as {}
}

test_no_purl {
	deny["component c has no purl"] with input as {"sbom": {"components": [object.remove(comp("c", "MIT", "library"), ["purl"])]}}
}

test_rule_data_licenses {
	count(deny) == 0 with input as {"sbom": {"components": [comp("b", "AGPL-3.0", "library")]}} with data.rule_data.disallowed_licenses as []
}

test_summary {
	s := summary with input as {"sbom": {"components": [comp("a", "MIT", "library"), comp("b", "MIT", "library"), comp("c", "MIT", "application")]}}
	s == {"components": 3, "types": {"library": 2, "application": 1}}
}
