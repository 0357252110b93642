package rules.cache.regex


__rego_metadata__ := {
	"id": "CPK-CAC-008",
	"title": "cache: the display name breaks the naming rule",
	"severity": "HIGH",
	"resource_type": "cache_resource",
}

resource_type = "cache_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	not regex.match(`^[a-z][a-z0-9-]{2,30}$`, resource.config.display_name)
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: the display name breaks the naming rule", [resource.name]),
	}
}
