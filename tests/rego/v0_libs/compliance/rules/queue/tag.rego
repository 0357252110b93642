package rules.queue.tag

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-QUE-003",
	"title": "queue: the owner tag is missing",
	"severity": "LOW",
	"resource_type": "queue_resource",
}

resource_type = "queue_resource"

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
