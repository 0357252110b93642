package rules.kms.not_empty


__rego_metadata__ := {
	"id": "CPK-KMS-010",
	"title": "kms: no administrators are assigned",
	"severity": "HIGH",
	"resource_type": "kms_resource",
}

resource_type = "kms_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	count(object.get(resource.config, "admins", [])) == 0
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: no administrators are assigned", [resource.name]),
	}
}
