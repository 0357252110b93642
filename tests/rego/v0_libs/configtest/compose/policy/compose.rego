package docker_compose

import data.lib.compose as lib

version_ok(v) {
	to_number(v) >= 3
}

deny[msg] {
	not version_ok(input.version)
	msg := sprintf("compose file version %v is too old (3+ required)", [input.version])
}

deny[msg] {
	svc := input.services[name]
	endswith(svc.image, ":latest")
	msg := sprintf("service %s uses a latest image", [name])
}

warn[msg] {
	some name
	svc := input.services[name]
	lib.publishes_privileged_port(svc)
	msg := sprintf("service %s publishes a privileged port", [name])
}

services_with_volumes[name] = count(svc.volumes) {
	svc := input.services[name]
	svc.volumes
}
