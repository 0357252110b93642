package rules.queue.not_empty


__rego_metadata__ := {
	"id": "CPK-QUE-010",
	"title": "queue: no administrators are assigned",
	"severity": "CRITICAL",
	"resource_type": "queue_resource",
}

resource_type = "queue_resource"

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
