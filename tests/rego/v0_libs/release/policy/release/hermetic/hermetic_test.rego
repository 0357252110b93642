package policy.release.hermetic

b(h, fetched) = {"build": {"params": [{"name": "HERMETIC", "value": h}], "fetched": fetched}}

test_hermetic {
	count(deny) == 0 with input as b("true", ["https://proxy.corp.example/maven/a.jar"])
}

test_not_hermetic {
	deny["the build was not hermetic"] with input as b("false", [])
}

test_fetch_outside {
	deny["hermetic build fetched https://evil.example/x"] with input as b("true", ["https://evil.example/x"])
}

test_default_hermetic {
	hermetic == false with input as {"build": {"params": []}}
}
