package k8scontainerlimits

params := {"cpu": "200m", "memory": "1Gi"}

pod(limits) = {"parameters": params, "review": {"object": {"spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"limits": limits}}]}}}}

test_within {
	count(violation) == 0 with input as pod({"cpu": "100m", "memory": "512Mi"})
}

test_cpu_number {
	count(violation) == 0 with input as pod({"cpu": 0.1, "memory": "1Gi"})
}

test_cpu_too_high {
	v := violation with input as pod({"cpu": "1", "memory": "1Gi"})
	v == {{"msg": "container <c> cpu limit <1> is higher than the maximum allowed of <200m>"}}
}

test_mem_too_high {
	v := violation with input as pod({"cpu": "100m", "memory": "2Gi"})
	count(v) == 1
}

test_mem_plain_bytes {
	count(violation) == 0 with input as pod({"cpu": "100m", "memory": "1000"})
}

test_unparseable {
	v := violation with input as pod({"cpu": "lots", "memory": "1Gi"})
	v == {{"msg": "container <c> cpu limit <lots> could not be parsed"}}
}

test_missing_limits {
	inp := {"parameters": params, "review": {"object": {"spec": {"containers": [{"name": "c", "image": "nginx", "resources": {}}]}}}}
	v := violation with input as inp
	v == {{"msg": "container <c> has no resource limits"}}
}

test_exempt {
	inp := object.union(pod({"cpu": "9", "memory": "9Gi"}), {"parameters": {"exemptImages": ["ngin*"]}})
	count(violation) == 0 with input as inp
}

test_canonify {
	canonify_cpu("1.5") == 1500
	canonify_mem("1k") == 1000000
	canonify_mem("2Mi") == 2097152000
	get_suffix("10Gi") == "Gi"
	get_suffix(10) == ""
}
