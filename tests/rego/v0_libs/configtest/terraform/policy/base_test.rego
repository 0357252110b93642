package main

plan(changes) = {"resource_changes": changes}

rc(addr, t, actions, after) = {"address": addr, "type": t, "change": {"actions": actions, "after": after}}

test_blacklisted {
	deny["Terraform plan will change prohibited resources in the following namespaces: google_iam, google_container"] with input as plan([rc("a", "google_iam_policy", ["create"], {})])
}

test_allowed {
	count(deny) == 0 with input as plan([rc("a", "aws_instance", ["create"], {}), rc("b", "aws_s3_bucket", ["update"], {})])
}

test_deletes {
	warn["2 resources will be deleted"] with input as plan([rc("a", "x", ["delete"], {}), rc("b", "y", ["delete", "create"], {}), rc("c", "z", ["update"], {})])
}

test_changes_by_action {
	c := changes_by_action with input as plan([rc("a", "x", ["delete"], {}), rc("b", "y", ["delete", "create"], {})])
	c == {"delete": {"a", "b"}, "create": {"b"}}
}

test_public_bucket {
	deny["b: bucket ACL \"public-read\" is not private"] with input as plan([rc("b", "aws_s3_bucket", ["create"], {"acl": "public-read"})])
}

test_resource_types {
	resource_types == {"x", "y"} with input as plan([rc("a", "x", [], {}), rc("b", "y", [], {}), rc("c", "x", [], {})])
}
