package rules.dns.in_set

import future.keywords.in

__rego_metadata__ := {
	"id": "CPK-DNS-007",
	"title": "dns: TLS version is too old",
	"severity": "HIGH",
	"resource_type": "dns_resource",
}

resource_type = "dns_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	not resource.config.tls_version in {"1.2", "1.3"}
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: TLS version is too old", [resource.name]),
	}
}
