package rules.queue.port

import future.keywords.in

__rego_metadata__ := {
	"id": "CPK-QUE-009",
	"title": "queue: SSH is reachable",
	"severity": "HIGH",
	"resource_type": "queue_resource",
}

resource_type = "queue_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	some r in resource.config.rules
	r.from_port <= 22
	22 <= r.to_port
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: SSH is reachable", [resource.name]),
	}
}
