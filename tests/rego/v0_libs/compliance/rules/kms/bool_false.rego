package rules.kms.bool_false


__rego_metadata__ := {
	"id": "CPK-KMS-002",
	"title": "kms: public access is enabled",
	"severity": "HIGH",
	"resource_type": "kms_resource",
}

resource_type = "kms_resource"

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
