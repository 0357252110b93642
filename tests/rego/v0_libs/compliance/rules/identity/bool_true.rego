package rules.identity.bool_true


__rego_metadata__ := {
	"id": "CPK-IDE-001",
	"title": "identity: logging is not enabled",
	"severity": "LOW",
	"resource_type": "identity_resource",
}

resource_type = "identity_resource"

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
