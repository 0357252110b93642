package policy.release.attestation_type

statement(t) = {"statement": {"_type": "https://in-toto.io/Statement/v0.1", "predicateType": t}}

test_known {
	count(deny) == 0 with input as {"attestations": [statement("https://slsa.dev/provenance/v1")]}
}

test_unknown {
	d := deny with input as {"attestations": [statement("https://evil/x")]}
	d == {{"code": "attestation_type.known_attestation_type", "msg": "Unknown attestation type 'https://evil/x'", "title": "Known attestation type"}}
}

test_not_a_statement {
	d := deny with input as {"attestations": [statement("https://slsa.dev/provenance/v1"), {"statement": {"_type": "other", "predicateType": "https://spdx.dev/Document"}}]}
	d == {{"code": "attestation_type.statement_type", "msg": "Attestation 1 is not an in-toto statement", "title": "In-toto statement"}}
}

test_package_annotations {
	package_title == "Attestation type"
}

test_rule_entry_without_annotations {
	rule_entry == {"path": ["policy", "release", "attestation_type", "rule_entry"]}
}
