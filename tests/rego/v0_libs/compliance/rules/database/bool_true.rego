package rules.database.bool_true


__rego_metadata__ := {
	"id": "CPK-DAT-001",
	"title": "database: logging is not enabled",
	"severity": "CRITICAL",
	"resource_type": "database_resource",
}

resource_type = "database_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	not resource.config.logging_enabled == true
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: logging is not enabled", [resource.name]),
	}
}
