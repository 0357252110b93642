package lib.exempt_container

test_exact_match {
	is_exempt({"image": "nginx:1.2"}) with input as {"parameters": {"exemptImages": ["nginx:1.2"]}}
}

test_prefix_match {
	is_exempt({"image": "registry.k8s.io/pause:3"}) with input as {"parameters": {"exemptImages": ["registry.k8s.io/*"]}}
}

test_no_parameters {
	not is_exempt({"image": "nginx"}) with input as {}
}

test_star_is_not_exact {
	not is_exempt({"image": "nginx"}) with input as {"parameters": {"exemptImages": ["nginx*x"]}}
}
