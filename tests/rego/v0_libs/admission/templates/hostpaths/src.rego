package k8spsphostfilesystem

import data.lib.exclude_update.is_update

violation[{"msg": msg, "details": {}}] {
	not is_update(input.review)
	volume := input_hostpath_volumes[_]
	allowedPaths := get_allowed_paths(input)
	input_hostpath_violation(allowedPaths, volume)
	msg := sprintf("HostPath volume %v is not allowed, pod: %v. Allowed path: %v", [volume, input.review.object.metadata.name, allowedPaths])
}

input_hostpath_violation(allowedPaths, _) {
	allowedPaths == []
}

input_hostpath_violation(allowedPaths, volume) {
	not input_hostpath_allowed(allowedPaths, volume)
}

get_allowed_paths(arg) = out {
	not arg.parameters
	out = []
}

get_allowed_paths(arg) = out {
	not arg.parameters.allowedHostPaths
	out = []
}

get_allowed_paths(arg) = out {
	out = arg.parameters.allowedHostPaths
}

input_hostpath_allowed(allowedPaths, volume) {
	allowedHostPath := allowedPaths[_]
	path_matches(allowedHostPath.pathPrefix, volume.hostPath.path)
	not allowedHostPath.readOnly == true
}

input_hostpath_allowed(allowedPaths, volume) {
	allowedHostPath := allowedPaths[_]
	path_matches(allowedHostPath.pathPrefix, volume.hostPath.path)
	allowedHostPath.readOnly
	not writeable_input_volume_mounts(volume.name)
}

writeable_input_volume_mounts(volume_name) {
	container := input.review.object.spec.containers[_]
	mount := container.volumeMounts[_]
	mount.name == volume_name
	not mount.readOnly
}

path_matches(prefix, path) {
	a := path_array(prefix)
	b := path_array(path)
	prefix_matches(a, b)
}

path_array(p) = out {
	p != "/"
	out := split(trim(p, "/"), "/")
}

# This handles the special case for "/", since
# split(trim("/", "/"), "/") == [""]
path_array("/") = []

prefix_matches(a, b) {
	count(a) <= count(b)
	not any_not_equal_upto(a, b, count(a))
}

any_not_equal_upto(a, b, n) {
	a[i] != b[i]
	i < n
}

input_hostpath_volumes[v] {
	v := input.review.object.spec.volumes[_]
	has_field(v, "hostPath")
}

has_field(object, field) = true {
	object[field]
}
