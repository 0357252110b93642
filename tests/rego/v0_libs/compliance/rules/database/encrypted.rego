package rules.database.encrypted

import data.lib.common

__rego_metadata__ := {
	"id": "CPK-DAT-005",
	"title": "database: a volume is not encrypted",
	"severity": "CRITICAL",
	"resource_type": "database_resource",
}

resource_type = "database_resource"

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
