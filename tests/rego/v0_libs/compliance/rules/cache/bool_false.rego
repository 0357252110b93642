package rules.cache.bool_false


__rego_metadata__ := {
	"id": "CPK-CAC-002",
	"title": "cache: public access is enabled",
	"severity": "LOW",
	"resource_type": "cache_resource",
}

resource_type = "cache_resource"

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
