package rules.compute.regex


__rego_metadata__ := {
	"id": "CPK-COM-008",
	"title": "compute: the display name breaks the naming rule",
	"severity": "LOW",
	"resource_type": "compute_resource",
}

resource_type = "compute_resource"

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
