package rules.network.not_empty


__rego_metadata__ := {
	"id": "CPK-NET-010",
	"title": "network: no administrators are assigned",
	"severity": "CRITICAL",
	"resource_type": "network_resource",
}

resource_type = "network_resource"

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
