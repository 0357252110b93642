package k8spspvolumetypes

inp(vols, allowed) = {"parameters": {"volumes": allowed}, "review": {"object": {"metadata": {"name": "p"}, "spec": {"volumes": vols}}}}

test_allowed {
	count(violation) == 0 with input as inp([{"name": "a", "configMap": {}}, {"name": "b", "emptyDir": {}}], ["configMap", "emptyDir"])
}

test_hostpath_denied {
	v := violation with input as inp([{"name": "a", "hostPath": {"path": "/"}}, {"name": "b", "emptyDir": {}}], ["configMap", "emptyDir"])
	v == {{"msg": "The volume type hostPath is not allowed, pod: p. Allowed volume types: [\"configMap\", \"emptyDir\"]", "details": {}}}
}

test_star {
	count(violation) == 0 with input as inp([{"name": "a", "hostPath": {"path": "/"}}], ["*"])
}
