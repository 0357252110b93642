package rules.identity.tag

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-IDE-003",
	"title": "identity: the owner tag is missing",
	"severity": "HIGH",
	"resource_type": "identity_resource",
}

resource_type = "identity_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	common.tag_missing(resource, "owner")
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: the owner tag is missing", [resource.name]),
	}
}
