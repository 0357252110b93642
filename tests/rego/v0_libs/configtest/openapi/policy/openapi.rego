package openapi

operations[[path, method, op]] {
	op := input.paths[path][method]
	method != "parameters"
}

deny[msg] {
	operations[[path, method, op]]
	not op.security
	not input.security
	msg := sprintf("%s %s has no security requirement", [upper(method), path])
}

warn[msg] {
	operations[[path, method, op]]
	not op.operationId
	msg := sprintf("%s %s has no operationId", [upper(method), path])
}

deny[msg] {
	operations[[_, _, o]]
	id := o.operationId
	count([1 | operations[[_, _, op]]; op.operationId == id]) > 1
	msg := sprintf("operationId %s is used more than once", [id])
}

servers_insecure[url] {
	url := input.servers[_].url
	startswith(url, "http://")
}

deny[msg] {
	servers_insecure[url]
	msg := sprintf("server %s is not https", [url])
}
