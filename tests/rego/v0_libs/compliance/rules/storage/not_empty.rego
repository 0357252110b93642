package rules.storage.not_empty


__rego_metadata__ := {
	"id": "CPK-STO-010",
	"title": "storage: no administrators are assigned",
	"severity": "MEDIUM",
	"resource_type": "storage_resource",
}

resource_type = "storage_resource"

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
