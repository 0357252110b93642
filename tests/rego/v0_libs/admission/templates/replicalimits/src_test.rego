package k8sreplicalimits

dep(n) = {"review": {"object": {"kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": n}}}, "parameters": {"ranges": [{"min_replicas": 2, "max_replicas": 5}, {"min_replicas": 10, "max_replicas": 10}]}}

test_in_range {
	count(violation) == 0 with input as dep(3)
}

test_second_range {
	count(violation) == 0 with input as dep(10)
}

test_out_of_range {
	v := violation with input as dep(7)
	count(v) == 1
	some m
	v[m]
	startswith(m.msg, "The provided number of replicas is not allowed for Deployment: d.")
}

test_no_replicas_field {
	count(violation) == 1 with input as {"review": {"object": {"kind": "Deployment", "metadata": {"name": "d"}, "spec": {}}}, "parameters": {"ranges": [{"min_replicas": 1, "max_replicas": 2}]}}
}
