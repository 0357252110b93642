package helm.values

ok := {"resources": {"limits": {"memory": "1Gi"}, "requests": {"cpu": "100m"}}, "replicaCount": 3, "environment": "production"}

test_ok {
	count(deny) == 0 with input as ok
}

test_default_replicas {
	deny["production needs at least 2 replicas, got 1"] with input as object.remove(ok, ["replicaCount"])
}

test_resources {
	deny["values must set resources.limits.memory and resources.requests.cpu"] with input as {"resources": {"limits": {}}}
}

test_pull_policy {
	deny["pullPolicy Always without a digest makes releases unreproducible"] with input as object.union(ok, {"image": {"pullPolicy": "Always"}})
}

test_merged_defaults {
	m := merged with input as {"service": {"port": 8080}}
	m.service == {"type": "ClusterIP", "port": 8080}
	m.image.pullPolicy == "IfNotPresent"
}
