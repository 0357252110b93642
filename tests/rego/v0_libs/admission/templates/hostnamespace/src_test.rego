package k8spsphostnamespace

test_host_pid {
	count(violation) == 1 with input as {"review": {"object": {"metadata": {"name": "p"}, "spec": {"hostPID": true}}}}
}

test_host_both_one_violation {
	count(violation) == 1 with input as {"review": {"object": {"metadata": {"name": "p"}, "spec": {"hostPID": true, "hostIPC": true}}}}
}

test_none {
	count(violation) == 0 with input as {"review": {"object": {"metadata": {"name": "p"}, "spec": {"hostPID": false}}}}
}
