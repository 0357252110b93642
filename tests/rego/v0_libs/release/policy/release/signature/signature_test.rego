package policy.release.signature

pl(repo) = base64.encode(json.marshal({"critical": {"identity": {"docker-reference": repo}}}))

sig(img, key, repo) = {"image": img, "keyid": key, "payload": pl(repo)}

test_verified {
	count(deny) == 0 with input as {"images": ["r/app:1@sha256:a"], "signatures": [sig("r/app@sha256:a", "k1", "r/app")]} with data.rule_data.trusted_keys as ["k1"]
}

test_untrusted_key {
	deny["image r/app:1@sha256:a has no signature from a trusted key"] with input as {"images": ["r/app:1@sha256:a"], "signatures": [sig("r/app@sha256:a", "k2", "r/app")]} with data.rule_data.trusted_keys as ["k1"]
}

test_payload_mismatch {
	deny["signature payload names r/other, not r/app"] with input as {"images": [], "signatures": [sig("r/app@sha256:a", "k1", "r/other")]} with data.rule_data.trusted_keys as ["k1"]
}

test_mock_equal_ref {
	count(deny) == 0 with input as {"images": ["x"], "signatures": [sig("y@sha256:b", "k1", "y")]} with data.rule_data.trusted_keys as ["k1"] with data.lib.image.equal_ref as mock_equal
}

mock_equal(_, _) = true
