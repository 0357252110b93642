package rules.storage.port

import future.keywords.in

__rego_metadata__ := {
	"id": "CPK-STO-009",
	"title": "storage: SSH is reachable",
	"severity": "LOW",
	"resource_type": "storage_resource",
}

resource_type = "storage_resource"

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
