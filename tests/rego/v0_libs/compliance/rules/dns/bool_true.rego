package rules.dns.bool_true


__rego_metadata__ := {
	"id": "CPK-DNS-001",
	"title": "dns: logging is not enabled",
	"severity": "LOW",
	"resource_type": "dns_resource",
}

resource_type = "dns_resource"

deny[info] {
	resource := input.resources[_]
	resource.type == resource_type
	not resource.config.logging_enabled == true
	info := {
		"id": __rego_metadata__.id,
		"severity": __rego_metadata__.severity,
		"resource": resource.name,
		"message": sprintf("%s: logging is not enabled", [resource.name]),
	}
}
