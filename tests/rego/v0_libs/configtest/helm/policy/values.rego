package helm.values

default replicas = 1

replicas = input.replicaCount

resources_set {
	input.resources.limits.memory
	input.resources.requests.cpu
}

deny[msg] {
	not resources_set
	msg := "values must set resources.limits.memory and resources.requests.cpu"
}

deny[msg] {
	replicas < 2
	input.environment == "production"
	msg := sprintf("production needs at least 2 replicas, got %d", [replicas])
}

deny[msg] {
	input.image.pullPolicy == "Always"
	not input.image.digest
	msg := "pullPolicy Always without a digest makes releases unreproducible"
}

merged := object.union(defaults, input)

defaults := {"image": {"pullPolicy": "IfNotPresent"}, "service": {"type": "ClusterIP", "port": 80}}
