package rules.compute.bool_true


__rego_metadata__ := {
	"id": "CPK-COM-001",
	"title": "compute: logging is not enabled",
	"severity": "MEDIUM",
	"resource_type": "compute_resource",
}

resource_type = "compute_resource"

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
