package lib.common

import future.keywords.in
import future.keywords.if
import future.keywords.contains
import future.keywords.every

# Resources of one type, from a plan-shaped input.
resources(resource_type) = {r |
	r := input.resources[_]
	r.type == resource_type
}

tag_missing(resource, key) if {
	not resource.config.tags[key]
}

any_open_cidr(cidrs) if {
	some cidr in cidrs
	cidr in {"0.0.0.0/0", "::/0"}
}

all_encrypted(volumes) if {
	every v in volumes {
		v.encrypted == true
	}
}

severity_rank := {"LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}

at_least(sev, min_sev) if severity_rank[sev] >= severity_rank[min_sev]

result(metadata, resource, msg) = info {
	info := {
		"id": metadata.id,
		"severity": metadata.severity,
		"resource": resource.name,
		"message": msg,
	}
}
