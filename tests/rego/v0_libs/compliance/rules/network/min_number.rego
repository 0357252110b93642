package rules.network.min_number


__rego_metadata__ := {
	"id": "CPK-NET-006",
	"title": "network: retention is shorter than 90 days",
	"severity": "CRITICAL",
	"resource_type": "network_resource",
}

resource_type = "network_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	resource.config.retention_days < 90
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: retention is shorter than 90 days", [resource.name]),
	}
}
