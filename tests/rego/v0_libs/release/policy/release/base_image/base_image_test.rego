package policy.release.base_image

test_allowed_and_pinned {
	count(deny) == 0 with input as {"build": {"base_images": ["registry.corp.example/ubi:9@sha256:1"]}}
}

test_not_allowed {
	deny["base image docker.io/alpine@sha256:1 is not from an allowed registry"] with input as {"build": {"base_images": ["docker.io/alpine@sha256:1"]}}
}

test_not_pinned {
	deny["base image registry.corp.example/ubi:9 is not pinned by digest"] with input as {"build": {"base_images": ["registry.corp.example/ubi:9"]}}
}

test_registries_from_rule_data {
	count(deny) == 0 with input as {"build": {"base_images": ["docker.io/alpine@sha256:1"]}} with data.rule_data.allowed_registries as ["docker.io/"]
}
