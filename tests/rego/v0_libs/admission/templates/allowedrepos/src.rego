package k8sallowedrepos

import data.lib.helpers.containers

violation[{"msg": msg}] {
	container := containers[_]
	satisfied := [good | repo = input.parameters.repos[_]; good = startswith(container.image, repo)]
	not any(satisfied)
	msg := sprintf("container <%v> has an invalid image repo <%v>, allowed repos are %v", [container.name, container.image, input.parameters.repos])
}
