package rules.storage.tag

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-STO-003",
	"title": "storage: the owner tag is missing",
	"severity": "HIGH",
	"resource_type": "storage_resource",
}

resource_type = "storage_resource"

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
