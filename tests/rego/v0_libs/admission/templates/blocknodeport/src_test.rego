package k8sblocknodeport

test_nodeport {
	v := violation with input as {"review": {"kind": {"kind": "Service"}, "object": {"spec": {"type": "NodePort"}}}}
	v == {{"msg": "User is not allowed to create service of type NodePort"}}
}

test_clusterip {
	count(violation) == 0 with input as {"review": {"kind": {"kind": "Service"}, "object": {"spec": {"type": "ClusterIP", "ports": [{"port": 80}]}}}}
}

test_port_with_nodeport {
	v := violation with input as {"review": {"kind": {"kind": "Service"}, "object": {"spec": {"type": "LoadBalancer", "ports": [{"port": 80}, {"port": 81, "nodePort": 30001}]}}}}
	v == {{"msg": "port 1 sets a nodePort"}}
}
