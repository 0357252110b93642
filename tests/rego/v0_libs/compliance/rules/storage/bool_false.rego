package rules.storage.bool_false


__rego_metadata__ := {
	"id": "CPK-STO-002",
	"title": "storage: public access is enabled",
	"severity": "MEDIUM",
	"resource_type": "storage_resource",
}

resource_type = "storage_resource"

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
