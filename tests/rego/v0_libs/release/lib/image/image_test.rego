package lib.image

test_parse_full {
	parse("registry.io:5000/ns/app:1.2@sha256:abc") == {"repo": "registry.io:5000/ns/app", "tag": "1.2", "digest": "sha256:abc"}
}

test_parse_port_no_tag {
	parse("registry.io:5000/ns/app") == {"repo": "registry.io:5000/ns/app", "tag": "", "digest": ""}
}

test_parse_digest_only {
	parse("app@sha256:1") == {"repo": "app", "tag": "", "digest": "sha256:1"}
}

test_equal_ref_ignores_tag {
	equal_ref("a/b:1@sha256:x", "a/b:2@sha256:x")
	not equal_ref("a/b@sha256:x", "a/c@sha256:x")
}

test_str_round_trip {
	str(parse("a/b:1@sha256:x")) == "a/b:1@sha256:x"
	str(parse("a/b")) == "a/b"
}
