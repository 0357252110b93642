package main

dep(ro) = {"kind": "Deployment", "metadata": {"name": "d", "namespace": "n"}, "spec": {"template": {"spec": {"containers": [{"name": "c", "securityContext": {"readOnlyRootFilesystem": ro}}]}}}}

test_writable {
	deny["Deployment/d: container c has a writable root filesystem"] with input as [dep(false)]
}

test_readonly {
	count(deny) == 0 with input as [dep(true)]
}

test_namespace_warning {
	warn["document 1 (Service) has no namespace"] with input as [dep(true), {"kind": "Service", "metadata": {"name": "s"}}]
}
