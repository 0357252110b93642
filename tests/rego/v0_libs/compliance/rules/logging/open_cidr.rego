package rules.logging.open_cidr

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-LOG-004",
	"title": "logging: ingress is open to the internet",
	"severity": "LOW",
	"resource_type": "logging_resource",
}

resource_type = "logging_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	common.any_open_cidr(resource.config.ingress_cidrs)
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: ingress is open to the internet", [resource.name]),
	}
}
