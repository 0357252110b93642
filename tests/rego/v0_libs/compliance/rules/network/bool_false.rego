package rules.network.bool_false


__rego_metadata__ := {
	"id": "CPK-NET-002",
	"title": "network: public access is enabled",
	"severity": "CRITICAL",
	"resource_type": "network_resource",
}

resource_type = "network_resource"

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
