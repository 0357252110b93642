package traefik

secure := {"entryPoints": {"web": {"address": ":80", "http": {"redirections": {"entryPoint": {"to": "websecure"}}}}, "websecure": {"address": ":443"}}, "tls": {"options": {"default": {"minVersion": "VersionTLS12"}}}}

test_secure {
	count(deny) == 0 with input as secure
}

test_no_redirect {
	deny["entrypoint web serves plain HTTP without a redirect"] with input as json.patch(secure, [{"op": "remove", "path": "/entryPoints/web/http"}])
}

test_tls_default {
	deny["TLS 1.0 is allowed"] with input as object.remove(secure, ["tls"])
}

test_insecure_api {
	deny["the dashboard API must not be insecure"] with input as object.union(secure, {"api": {"insecure": true}})
}
