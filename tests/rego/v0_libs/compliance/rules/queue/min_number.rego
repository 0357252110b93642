package rules.queue.min_number


__rego_metadata__ := {
	"id": "CPK-QUE-006",
	"title": "queue: retention is shorter than 90 days",
	"severity": "CRITICAL",
	"resource_type": "queue_resource",
}

resource_type = "queue_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	resource.config.retention_days < 90
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: retention is shorter than 90 days", [resource.name]),
	}
}
