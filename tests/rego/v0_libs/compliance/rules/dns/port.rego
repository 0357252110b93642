package rules.dns.port

import future.keywords.in

__rego_metadata__ := {
	"id": "CPK-DNS-009",
	"title": "dns: SSH is reachable",
	"severity": "LOW",
	"resource_type": "dns_resource",
}

resource_type = "dns_resource"

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
