package main

deployment(labels, runas) = {
	"kind": "Deployment",
	"metadata": {"name": "web", "labels": labels},
	"spec": {"template": {"spec": {"securityContext": {"runAsNonRoot": runas}, "containers": [{"name": "c", "image": "nginx:1.25"}]}}},
}

good_labels = {"app.kubernetes.io/name": "web", "app.kubernetes.io/instance": "web-1"}

test_deployment_ok {
	count(deny) == 0 with input as deployment(good_labels, true)
}

test_deployment_no_labels {
	deny["web must include Kubernetes recommended labels: https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/#labels"] with input as deployment({}, true)
}

test_deployment_root {
	deny["Containers must not run as root in Deployment web"] with input as deployment(good_labels, false)
}

test_latest_tag_pod {
	deny["app in the Pod p has an image, nginx, using the latest tag"] with input as {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "app", "image": "nginx"}]}}
}

test_latest_tag_explicit {
	deny["app in the Pod p has an image, nginx, using the latest tag"] with input as {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"initContainers": [{"name": "app", "image": "nginx:latest"}]}}
}

test_service_warn {
	warn["Service s is exposed through a load balancer"] with input as {"kind": "Service", "metadata": {"name": "s"}, "spec": {"type": "LoadBalancer"}}
}

test_privileged_port {
	v := violation with input as {"kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 8080}, {"port": 80}, {"port": 443}]}}
	v == {{"msg": "port 80 (index 1) is privileged", "details": {"port": {"port": 80}}}}
}

test_privileged_port_data_file_exception {
	count(violation) == 0 with input as {"kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 443}]}}
}

test_privileged_port_mocked_exceptions {
	count(violation) == 1 with input as {"kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 443}]}} with data.exceptions.privileged_ports as {}
}
