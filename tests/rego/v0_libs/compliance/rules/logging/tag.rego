package rules.logging.tag

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-LOG-003",
	"title": "logging: the owner tag is missing",
	"severity": "CRITICAL",
	"resource_type": "logging_resource",
}

resource_type = "logging_resource"

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
