package rules.dns.tag

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-DNS-003",
	"title": "dns: the owner tag is missing",
	"severity": "HIGH",
	"resource_type": "dns_resource",
}

resource_type = "dns_resource"

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
