package capabilities

c(add, drop) = {"name": "c", "image": "i", "securityContext": {"capabilities": {"add": add, "drop": drop}}}

inp(cs, params) = {"review": {"object": {"spec": {"containers": cs}}}, "parameters": params}

test_allowed_subset {
	count(violation) == 0 with input as inp([c(["NET_ADMIN"], ["ALL"])], {"allowedCapabilities": ["net_admin", "chown"], "requiredDropCapabilities": ["must_drop"]})
}

test_disallowed {
	v := violation with input as inp([c(["SYS_ADMIN"], ["ALL"])], {"allowedCapabilities": ["CHOWN"]})
	v == {{"msg": "container <c> has a disallowed capability. Allowed capabilities are [\"CHOWN\"]"}}
}

test_wildcard {
	count(violation) == 0 with input as inp([c(["SYS_ADMIN"], [])], {"allowedCapabilities": ["*"]})
}

test_missing_drop {
	v := violation with input as inp([c([], ["CHOWN"])], {"requiredDropCapabilities": ["NET_RAW"]})
	count(v) == 1
}

test_default_message {
	get_default({}, "x", "NONE") == "NONE"
	get_default({"x": false}, "x", "NONE") == false
}
