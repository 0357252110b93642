package lib.kubernetes

test_split_image {
	split_image("nginx") == ["nginx", "latest"]
	split_image("nginx:1") == ["nginx", "1"]
}

test_gatekeeper_format {
	format("m") == {"msg": "m"} with input as {"review": {"object": {"kind": "Pod"}}}
	format("m") == "m" with input as {"kind": "Pod"}
}

test_object_gatekeeper {
	name == "x" with input as {"review": {"object": {"metadata": {"name": "x"}}}}
}

test_volumes {
	count(volumes) == 2 with input as {"kind": "Deployment", "spec": {"template": {"spec": {"volumes": [{"name": "a"}, {"name": "b"}]}}}}
}
