package rules.queue.bool_false


__rego_metadata__ := {
	"id": "CPK-QUE-002",
	"title": "queue: public access is enabled",
	"severity": "CRITICAL",
	"resource_type": "queue_resource",
}

resource_type = "queue_resource"

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
