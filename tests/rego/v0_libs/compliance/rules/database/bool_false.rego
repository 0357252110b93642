package rules.database.bool_false


__rego_metadata__ := {
	"id": "CPK-DAT-002",
	"title": "database: public access is enabled",
	"severity": "LOW",
	"resource_type": "database_resource",
}

resource_type = "database_resource"

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
