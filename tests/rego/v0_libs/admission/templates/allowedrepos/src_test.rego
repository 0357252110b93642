package k8sallowedrepos

pod(containers) = {"review": {"object": {"kind": "Pod", "spec": {"containers": containers}}}, "parameters": {"repos": ["registry.corp/", "gcr.io/proj/"]}}

test_allowed {
	count(violation) == 0 with input as pod([{"name": "a", "image": "registry.corp/nginx"}])
}

test_denied_one {
	v := violation with input as pod([{"name": "a", "image": "docker.io/nginx"}, {"name": "b", "image": "gcr.io/proj/x"}])
	count(v) == 1
	v[{"msg": "container <a> has an invalid image repo <docker.io/nginx>, allowed repos are [\"registry.corp/\", \"gcr.io/proj/\"]"}]
}

test_empty_repos_denies_all {
	v := violation with input as {"review": {"object": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}, "parameters": {"repos": []}}
	count(v) == 1
}

test_template_containers {
	v := violation with input as {"review": {"object": {"spec": {"template": {"spec": {"containers": [{"name": "d", "image": "quay.io/x"}]}}}}}, "parameters": {"repos": ["registry.corp/"]}}
	count(v) == 1
}
