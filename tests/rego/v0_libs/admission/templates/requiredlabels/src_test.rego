package k8srequiredlabels

test_input_no_required_labels {
	inp := {"review": review([]), "parameters": {}}
	results := violation with input as inp
	count(results) == 0
}

test_input_has_label {
	inp := {"review": review([kv("some", "label")]), "parameters": {"labels": [lbl("some", "")]}}
	results := violation with input as inp
	count(results) == 0
}

test_input_missing_label {
	inp := {"review": empty, "parameters": {"labels": [lbl("some", "")]}}
	results := violation with input as inp
	count(results) == 1
	results[r]
	r.details.missing_labels == {"some"}
}

test_input_missing_many {
	inp := {"review": review([kv("a", "1")]), "parameters": {"labels": [lbl("a", ""), lbl("b", ""), lbl("c", "")]}}
	results := violation with input as inp
	some r
	results[r]
	r.details.missing_labels == {"b", "c"}
	r.msg == "you must provide labels: {\"b\", \"c\"}"
}

test_regex_mismatch_custom_message {
	inp := {"review": review([kv("owner", "me")]), "parameters": {"message": "bad", "labels": [lbl("owner", "^[a-z]+\\.agilebank\\.demo$")]}}
	results := violation with input as inp
	results == {{"msg": "bad"}}
}

test_regex_match {
	inp := {"review": review([kv("owner", "me.agilebank.demo")]), "parameters": {"labels": [lbl("owner", "^[a-z]+\\.agilebank\\.demo$")]}}
	count(violation) == 0 with input as inp
}

test_update_strict {
	inp := {"review": object.union(review([]), {"operation": "UPDATE"}), "parameters": {"strictUpdates": true}}
	violation[{"msg": "update of labels not checked"}] with input as inp
}

empty = {"object": {"metadata": {"name": "nginx"}}}

review(labels) = output {
	output = {"object": {"metadata": {
		"name": "nginx",
		"labels": {k: v | l := labels[_]; k := l.k; v := l.v},
	}}}
}

kv(k, v) = {"k": k, "v": v}

lbl(k, v) = out {
	v == ""
	out = {"key": k}
}

lbl(k, v) = out {
	v != ""
	out = {"key": k, "allowedRegex": v}
}
