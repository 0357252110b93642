package rules.queue.encrypted

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-QUE-005",
	"title": "queue: a volume is not encrypted",
	"severity": "HIGH",
	"resource_type": "queue_resource",
}

resource_type = "queue_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	not common.all_encrypted(resource.config.volumes)
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: a volume is not encrypted", [resource.name]),
	}
}
