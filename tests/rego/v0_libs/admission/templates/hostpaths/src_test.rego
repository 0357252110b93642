package k8spsphostfilesystem

pod(vols, mounts) = {"review": {"object": {"metadata": {"name": "p"}, "spec": {"volumes": vols, "containers": [{"name": "c", "volumeMounts": mounts}]}}}}

vol(name, path) = {"name": name, "hostPath": {"path": path}}

test_no_params_denies {
	count(violation) == 1 with input as pod([vol("v", "/foo")], [])
}

test_prefix_allowed {
	inp := object.union(pod([vol("v", "/foo/bar")], []), {"parameters": {"allowedHostPaths": [{"pathPrefix": "/foo", "readOnly": false}]}})
	count(violation) == 0 with input as inp
}

test_prefix_is_per_segment {
	inp := object.union(pod([vol("v", "/foobar")], []), {"parameters": {"allowedHostPaths": [{"pathPrefix": "/foo", "readOnly": false}]}})
	count(violation) == 1 with input as inp
}

test_root_allows_all {
	inp := object.union(pod([vol("v", "/etc/x")], []), {"parameters": {"allowedHostPaths": [{"pathPrefix": "/", "readOnly": false}]}})
	count(violation) == 0 with input as inp
}

test_readonly_writable_mount {
	inp := object.union(pod([vol("v", "/foo")], [{"name": "v", "readOnly": false}]), {"parameters": {"allowedHostPaths": [{"pathPrefix": "/foo", "readOnly": true}]}})
	count(violation) == 1 with input as inp
}

test_readonly_readonly_mount {
	inp := object.union(pod([vol("v", "/foo")], [{"name": "v", "readOnly": true}]), {"parameters": {"allowedHostPaths": [{"pathPrefix": "/foo", "readOnly": true}]}})
	count(violation) == 0 with input as inp
}

test_path_array {
	path_array("/") == []
	path_array("/a/b/") == ["a", "b"]
}
