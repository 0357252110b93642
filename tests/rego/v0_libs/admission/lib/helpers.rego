package lib.helpers

# Shared helpers imported by every template (pre-1.0 syntax).

default is_update = false

is_update {
	input.review.operation == "UPDATE"
}

object := input.review.object

kind := input.review.kind.kind

containers[c] {
	c := input.review.object.spec.containers[_]
}

containers[c] {
	c := input.review.object.spec.initContainers[_]
}

containers[c] {
	c := input.review.object.spec.template.spec.containers[_]
}

containers[c] {
	c := input.review.object.spec.ephemeralContainers[_]
}

has_field(obj, field) {
	obj[field]
}

has_field(obj, field) {
	obj[field] == false
}

get_default(obj, key, _) = v {
	v := obj[key]
}

get_default(obj, key, fallback) = fallback {
	not has_field(obj, key)
}

missing(obj, field) = true {
	not obj[field]
}

missing(obj, field) = true {
	obj[field] == ""
}

label_value(obj, key) = v {
	v := obj.metadata.labels[key]
} else = "" {
	true
}
