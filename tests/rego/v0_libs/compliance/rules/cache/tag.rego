package rules.cache.tag

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-CAC-003",
	"title": "cache: the owner tag is missing",
	"severity": "MEDIUM",
	"resource_type": "cache_resource",
}

resource_type = "cache_resource"

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
