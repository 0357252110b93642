package rules.network.tag

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-NET-003",
	"title": "network: the owner tag is missing",
	"severity": "LOW",
	"resource_type": "network_resource",
}

resource_type = "network_resource"

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
