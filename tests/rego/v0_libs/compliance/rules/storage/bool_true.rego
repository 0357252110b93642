package rules.storage.bool_true


__rego_metadata__ := {
	"id": "CPK-STO-001",
	"title": "storage: logging is not enabled",
	"severity": "LOW",
	"resource_type": "storage_resource",
}

resource_type = "storage_resource"

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
