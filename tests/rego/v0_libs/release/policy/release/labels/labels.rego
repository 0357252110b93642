package policy.release.labels

required := {"name", "version", "vendor", "summary"}

image_labels := input.image.config.Labels

deny[msg] {
	missing := {l | required[l]; not image_labels[l]}
	count(missing) > 0
	msg := sprintf("required labels are missing: %s", [concat(", ", sort([l | missing[l]]))])
}

deny[msg] {
	v := image_labels.version
	not semver.is_valid(trim_prefix(v, "v"))
	msg := sprintf("version label %q is not semver", [v])
}

newer_than(v, floor) {
	semver.compare(trim_prefix(v, "v"), floor) > 0
}

warn[msg] {
	not newer_than(image_labels.version, "1.0.0")
	msg := "pre-1.0 version"
}
