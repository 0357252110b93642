package main

import input as tfplan

blacklist = [
	"google_iam",
	"google_container",
]

deny[msg] {
	check_resources(tfplan.resource_changes, blacklist)
	banned := concat(", ", blacklist)
	msg = sprintf("Terraform plan will change prohibited resources in the following namespaces: %v", [banned])
}

# Checks whether the plan will cause resources with certain prefixes to change
check_resources(resources, disallowed_prefixes) {
	startswith(resources[_].type, disallowed_prefixes[_])
}

resource_types = {t | t := tfplan.resource_changes[_].type}

changes_by_action[action] = names {
	action := tfplan.resource_changes[_].change.actions[_]
	names := {r.address | r := tfplan.resource_changes[_]; r.change.actions[_] == action}
}

warn[msg] {
	count(changes_by_action["delete"]) > 0
	msg := sprintf("%d resources will be deleted", [count(changes_by_action["delete"])])
}

deny[msg] {
	r := tfplan.resource_changes[_]
	r.type == "aws_s3_bucket"
	acl := object.get(r.change.after, "acl", "private")
	acl != "private"
	msg := sprintf("%s: bucket ACL %q is not private", [r.address, acl])
}
