package policy.release.slsa.provenance

att(builder, uris) = {"predicate": {"builder": {"id": builder}, "materials": [{"uri": u} | u := uris[_]], "invocation": {"parameters": {"target": "x", "API_TOKEN": "ghp_secret"}}}}

test_trusted {
	count(deny) == 0 with input as {"attestations": [att("https://builder.corp/v1", ["git+https://src"])]} with data.rule_data.trusted_builders as ["https://builder.corp/v1"]
}

test_untrusted_builder {
	d := deny with input as {"attestations": [att("evil", ["git+https://src"])]} with data.rule_data.trusted_builders as ["https://builder.corp/v1"]
	d == {{"code": "slsa.builder_trusted", "msg": "Builder evil is not trusted", "effective_on": "2022-01-01T00:00:00Z"}}
}

test_non_git_material {
	d := deny with input as {"attestations": [att("b", ["https://tarball"])]} with data.rule_data.trusted_builders as ["b"]
	count(d) == 1
	d[r]
	r.code == "slsa.material_is_git"
}

test_no_attestations {
	warn[r] with input as {"attestations": []}
	r.msg == "No attestations were found"
}

test_redacted {
	r := redacted_params with input as {"attestations": [att("b", [])]}
	r == {"target": "x", "API_TOKEN": "***"}
}

test_secret_paths {
	p := secret_paths with input as {"attestations": [att("b", [])]}
	p == {[0, "predicate", "invocation", "parameters", "API_TOKEN"]}
}

test_rules_ref_head {
	rules.builder_trusted.code == "slsa.builder_trusted"
	count(rules) == 3
}
