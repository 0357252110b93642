package policy.release.base_image

import data.lib
import data.lib.image

allowed_prefixes = lib.rule_data_value("allowed_registries")

base_images[ref] {
	ref := input.build.base_images[_]
}

allowed(ref) {
	startswith(ref, allowed_prefixes[_])
}

deny[msg] {
	ref := base_images[_]
	not allowed(ref)
	msg := sprintf("base image %s is not from an allowed registry", [ref])
}

deny[msg] {
	ref := base_images[_]
	image.parse(ref).digest == ""
	msg := sprintf("base image %s is not pinned by digest", [ref])
}
