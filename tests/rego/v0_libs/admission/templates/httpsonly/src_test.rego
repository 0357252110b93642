package k8shttpsonly

ing(annotations, tls) = {"kind": "Ingress", "apiVersion": "networking.k8s.io/v1", "metadata": {"name": "my-ing", "annotations": annotations}, "spec": {"tls": tls}}

test_https_ok {
	count(violation) == 0 with input as {"review": {"object": ing({"kubernetes.io/ingress.allow-http": "false"}, [{}])}}
}

test_no_tls {
	v := violation with input as {"review": {"object": ing({"kubernetes.io/ingress.allow-http": "false"}, [])}}
	v == {{"msg": "Ingress should be https. tls configuration and allow-http=false annotation are required for my-ing"}}
}

test_tls_optional_missing_annotation {
	v := violation with input as {"review": {"object": ing({}, [])}, "parameters": {"tlsOptional": true}}
	v == {{"msg": "Ingress should be https. The allow-http=false annotation is required for my-ing"}}
}

test_tls_optional_ok {
	count(violation) == 0 with input as {"review": {"object": ing({"kubernetes.io/ingress.allow-http": "false"}, [])}, "parameters": {"tlsOptional": true}}
}

test_other_api_group {
	count(violation) == 0 with input as {"review": {"object": object.union(ing({}, []), {"apiVersion": "other/v1"})}}
}
