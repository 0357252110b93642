package rules.identity.regex


__rego_metadata__ := {
	"id": "CPK-IDE-008",
	"title": "identity: the display name breaks the naming rule",
	"severity": "CRITICAL",
	"resource_type": "identity_resource",
}

resource_type = "identity_resource"

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
