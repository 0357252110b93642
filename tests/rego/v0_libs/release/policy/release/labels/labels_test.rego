package policy.release.labels

img(labels) = {"image": {"config": {"Labels": labels}}}

full := {"name": "app", "version": "v1.2.3", "vendor": "corp", "summary": "s"}

test_ok {
	count(deny) == 0 with input as img(full)
	count(warn) == 0 with input as img(full)
}

test_missing {
	deny["required labels are missing: summary, vendor"] with input as img({"name": "a", "version": "1.0.0"})
}

test_bad_semver {
	deny["version label \"1.2\" is not semver"] with input as img(object.union(full, {"version": "1.2"}))
}

test_pre_1 {
	warn["pre-1.0 version"] with input as img(object.union(full, {"version": "0.9.0"}))
}
