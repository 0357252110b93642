package rules.network.open_cidr

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-NET-004",
	"title": "network: ingress is open to the internet",
	"severity": "MEDIUM",
	"resource_type": "network_resource",
}

resource_type = "network_resource"

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
