package rules.identity.encrypted

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-IDE-005",
	"title": "identity: a volume is not encrypted",
	"severity": "LOW",
	"resource_type": "identity_resource",
}

resource_type = "identity_resource"

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
