package rules.dns.bool_false


__rego_metadata__ := {
	"id": "CPK-DNS-002",
	"title": "dns: public access is enabled",
	"severity": "MEDIUM",
	"resource_type": "dns_resource",
}

resource_type = "dns_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	resource.config.public_access
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: public access is enabled", [resource.name]),
	}
}
