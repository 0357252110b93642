package k8spspprivilegedcontainer

pod(cs) = {"review": {"object": {"spec": {"containers": cs}}}}

test_privileged {
	v := violation with input as pod([{"name": "a", "image": "x", "securityContext": {"privileged": true}}])
	v == {{"msg": "Privileged container is not allowed: a, securityContext: {\"privileged\": true}", "details": {}}}
}

test_not_privileged {
	count(violation) == 0 with input as pod([{"name": "a", "image": "x", "securityContext": {"privileged": false}}])
}

test_update_ignored {
	inp := {"review": {"operation": "UPDATE", "object": {"spec": {"containers": [{"name": "a", "securityContext": {"privileged": true}}]}}}}
	count(violation) == 0 with input as inp
}

test_init_and_ephemeral {
	inp := {"review": {"object": {"spec": {
		"initContainers": [{"name": "i", "image": "x", "securityContext": {"privileged": true}}],
		"ephemeralContainers": [{"name": "e", "image": "y", "securityContext": {"privileged": true}}],
	}}}}
	count(violation) == 2 with input as inp
}

test_exempt_image {
	inp := object.union(pod([{"name": "a", "image": "safe/x", "securityContext": {"privileged": true}}]), {"parameters": {"exemptImages": ["safe/*"]}})
	count(violation) == 0 with input as inp
}
