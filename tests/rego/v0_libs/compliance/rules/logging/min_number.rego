package rules.logging.min_number


__rego_metadata__ := {
	"id": "CPK-LOG-006",
	"title": "logging: retention is shorter than 90 days",
	"severity": "HIGH",
	"resource_type": "logging_resource",
}

resource_type = "logging_resource"

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
