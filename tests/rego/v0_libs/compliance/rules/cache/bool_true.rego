package rules.cache.bool_true


__rego_metadata__ := {
	"id": "CPK-CAC-001",
	"title": "cache: logging is not enabled",
	"severity": "CRITICAL",
	"resource_type": "cache_resource",
}

resource_type = "cache_resource"

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
