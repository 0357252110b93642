package rules.kms.bool_true


__rego_metadata__ := {
	"id": "CPK-KMS-001",
	"title": "kms: logging is not enabled",
	"severity": "MEDIUM",
	"resource_type": "kms_resource",
}

resource_type = "kms_resource"

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
