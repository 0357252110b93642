package rules.database.min_number


__rego_metadata__ := {
	"id": "CPK-DAT-006",
	"title": "database: retention is shorter than 90 days",
	"severity": "LOW",
	"resource_type": "database_resource",
}

resource_type = "database_resource"

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
