package k8srequiredprobes

params = {"probes": ["readinessProbe", "livenessProbe"], "probeTypes": ["tcpSocket", "httpGet", "exec"]}

inp(c) = {"parameters": params, "review": {"kind": {"kind": "Pod"}, "object": {"metadata": {"name": "p"}, "spec": {"containers": [c]}}}}

test_both_present {
	count(violation) == 0 with input as inp({"name": "c", "readinessProbe": {"httpGet": {}}, "livenessProbe": {"exec": {"command": ["true"]}}})
}

test_missing_liveness {
	v := violation with input as inp({"name": "c", "readinessProbe": {"tcpSocket": {"port": 80}}})
	v == {{"msg": "Container <c> in your <Pod> <p> has no <livenessProbe>"}}
}

test_empty_probe_type {
	v := violation with input as inp({"name": "c", "readinessProbe": {"initialDelaySeconds": 3}, "livenessProbe": {"httpGet": {"path": "/"}}})
	count(v) == 1
}
