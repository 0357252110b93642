package lib.compose

host_port(mapping) = p {
	is_string(mapping)
	parts := split(mapping, ":")
	count(parts) > 1
	p := to_number(parts[count(parts) - 2])
} else = p {
	is_number(mapping)
	p := mapping
} else = p {
	p := mapping.published
}

publishes_privileged_port(svc) {
	host_port(svc.ports[_]) < 1024
}
