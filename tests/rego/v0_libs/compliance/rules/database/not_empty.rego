package rules.database.not_empty


__rego_metadata__ := {
	"id": "CPK-DAT-010",
	"title": "database: no administrators are assigned",
	"severity": "LOW",
	"resource_type": "database_resource",
}

resource_type = "database_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	count(object.get(resource.config, "admins", [])) == 0
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: no administrators are assigned", [resource.name]),
	}
}
