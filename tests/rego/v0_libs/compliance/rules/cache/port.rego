package rules.cache.port

import future.keywords.in

__rego_metadata__ := {
	"id": "CPK-CAC-009",
	"title": "cache: SSH is reachable",
	"severity": "CRITICAL",
	"resource_type": "cache_resource",
}

resource_type = "cache_resource"

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
