package k8sdisallowedtags

inp(image) = {"parameters": {"tags": ["latest", "testing"]}, "review": {"object": {"spec": {"containers": [{"name": "c", "image": image}]}}}}

test_latest {
	v := violation with input as inp("nginx:latest")
	v == {{"msg": "container <c> uses a disallowed tag <nginx:latest>; disallowed tags are [\"latest\", \"testing\"]"}}
}

test_no_tag {
	v := violation with input as inp("nginx")
	v == {{"msg": "container <c> didn't specify an image tag <nginx>"}}
}

test_good_tag {
	count(violation) == 0 with input as inp("nginx:1.25")
}

test_exempt {
	count(violation) == 0 with input as object.union(inp("nginx:latest"), {"parameters": {"exemptImages": ["nginx:latest"]}})
}
