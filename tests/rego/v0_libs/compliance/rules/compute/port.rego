package rules.compute.port

import future.keywords.in

__rego_metadata__ := {
	"id": "CPK-COM-009",
	"title": "compute: SSH is reachable",
	"severity": "MEDIUM",
	"resource_type": "compute_resource",
}

resource_type = "compute_resource"

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
