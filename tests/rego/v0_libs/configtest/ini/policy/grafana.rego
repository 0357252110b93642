package main

deny_http[msg] {
	input.server.protocol == "http"
	msg := "Grafana should serve HTTPS"
}

deny_anonymous[msg] {
	input["auth.anonymous"].enabled == true
	msg := "anonymous access must be disabled"
}

deny[msg] {
	deny_http[msg]
}

deny[msg] {
	deny_anonymous[msg]
}

deny[msg] {
	some section
	value := input[section][key]
	is_string(value)
	contains(lower(value), "password")
	msg := sprintf("[%s] %s looks like it holds a password", [section, key])
}
