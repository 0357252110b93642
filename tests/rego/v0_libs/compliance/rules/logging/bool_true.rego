package rules.logging.bool_true


__rego_metadata__ := {
	"id": "CPK-LOG-001",
	"title": "logging: logging is not enabled",
	"severity": "MEDIUM",
	"resource_type": "logging_resource",
}

resource_type = "logging_resource"

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
