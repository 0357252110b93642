package rules.compute.tag

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-COM-003",
	"title": "compute: the owner tag is missing",
	"severity": "CRITICAL",
	"resource_type": "compute_resource",
}

resource_type = "compute_resource"

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
