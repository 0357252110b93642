package traefik

entrypoints := {name: ep | ep := input.entryPoints[name]}

deny[msg] {
	ep := entrypoints[name]
	endswith(ep.address, ":80")
	not ep.http.redirections.entryPoint.to
	msg := sprintf("entrypoint %s serves plain HTTP without a redirect", [name])
}

deny[msg] {
	input.api.insecure == true
	msg := "the dashboard API must not be insecure"
}

tls_min_version = v {
	v := input.tls.options["default"].minVersion
} else = "VersionTLS10" {
	true
}

deny[msg] {
	tls_min_version == "VersionTLS10"
	msg := "TLS 1.0 is allowed"
}
