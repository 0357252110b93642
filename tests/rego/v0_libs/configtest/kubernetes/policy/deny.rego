package main

import data.lib.kubernetes

name = input.metadata.name

required_deployment_labels {
	input.metadata.labels["app.kubernetes.io/name"]
	input.metadata.labels["app.kubernetes.io/instance"]
}

deny[msg] {
	kubernetes.is_deployment
	not required_deployment_labels
	msg = sprintf("%s must include Kubernetes recommended labels: https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/#labels", [name])
}

deny[msg] {
	kubernetes.is_deployment
	not input.spec.template.spec.securityContext.runAsNonRoot
	msg = sprintf("Containers must not run as root in Deployment %s", [name])
}

deny[msg] {
	kubernetes.containers[container]
	[image_name, "latest"] = kubernetes.split_image(container.image)
	msg = sprintf("%s in the %s %s has an image, %s, using the latest tag", [container.name, kubernetes.kind, kubernetes.name, image_name])
}

warn[msg] {
	kubernetes.is_service
	input.spec.type == "LoadBalancer"
	msg = concat(" ", ["Service", name, "is exposed through a load balancer"])
}

violation[{"msg": msg, "details": {"port": port}}] {
	kubernetes.is_service
	some i
	port := input.spec.ports[i]
	port.port < 1024
	not data.exceptions.privileged_ports[format_int(port.port, 10)]
	msg := sprintf("port %d (index %d) is privileged", [port.port, i])
}
