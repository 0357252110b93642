package openapi

spec(paths) = {"openapi": "3.0.0", "paths": paths, "servers": [{"url": "https://api"}]}

test_no_security {
	deny["GET /pets has no security requirement"] with input as spec({"/pets": {"get": {"operationId": "list"}}})
}

test_global_security {
	count(deny) == 0 with input as object.union(spec({"/pets": {"get": {"operationId": "list"}}}), {"security": [{"k": []}]})
}

test_duplicate_ids {
	deny["operationId x is used more than once"] with input as spec({"/a": {"get": {"operationId": "x", "security": []}}, "/b": {"post": {"operationId": "x", "security": []}}})
}

test_missing_id_warn {
	warn["POST /a has no operationId"] with input as spec({"/a": {"post": {"security": []}, "parameters": []}})
}

test_http_server {
	deny["server http://api is not https"] with input as {"paths": {}, "servers": [{"url": "http://api"}]}
}
