package lib.helpers

test_update {
	is_update with input as {"review": {"operation": "UPDATE"}}
}

test_not_update {
	not is_update with input as {"review": {"operation": "CREATE"}}
}

test_is_update_default {
	is_update == false with input as {}
}

test_containers_all_kinds {
	count(containers) == 3 with input as {"review": {"object": {"spec": {
		"containers": [{"name": "a"}],
		"initContainers": [{"name": "b"}],
		"ephemeralContainers": [{"name": "c"}],
	}}}}
}

test_get_default_present {
	get_default({"a": 1}, "a", 2) == 1
}

test_get_default_false_kept {
	get_default({"a": false}, "a", true) == false
}

test_get_default_missing {
	get_default({}, "a", 2) == 2
}

test_label_value_else {
	label_value({"metadata": {}}, "x") == ""
	label_value({"metadata": {"labels": {"x": "y"}}}, "x") == "y"
}
